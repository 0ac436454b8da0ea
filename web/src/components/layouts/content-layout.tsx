import { useEffect, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export type ContentLayoutProps = {
  title: string;
  /** Buttons shown next to the title (e.g. "New Creative"). */
  actions?: ReactNode;
  children?: ReactNode;
};

/** The frame of every signed-in page: an h1, optional actions, the body. */
export function ContentLayout({ title, actions, children }: ContentLayoutProps) {
  const { t } = useTranslation();
  const appName = t('app.name');

  useEffect(() => {
    document.title = `${title} · ${appName}`;
  }, [title, appName]);

  return (
    <section className="content">
      <header className="content__header">
        <h1 className="content__title">{title}</h1>
        {actions ? <div className="content__actions">{actions}</div> : null}
      </header>
      <div className="content__body">{children}</div>
    </section>
  );
}
