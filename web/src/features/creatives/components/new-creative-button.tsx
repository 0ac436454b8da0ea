import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/button';

export type NewCreativeButtonProps = {
  onClick: () => void;
  /** Whether the upload panel it controls is open. */
  expanded: boolean;
  controls?: string;
};

/** The "New Creative" call to action: opens the upload panel. */
export function NewCreativeButton({ onClick, expanded, controls }: NewCreativeButtonProps) {
  const { t } = useTranslation();
  return (
    <Button data-testid="new-creative" onClick={onClick} aria-expanded={expanded} aria-controls={controls}>
      {t('creatives.new')}
    </Button>
  );
}
