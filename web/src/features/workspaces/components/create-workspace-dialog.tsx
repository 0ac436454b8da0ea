import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { fieldErrorKey, isApiError } from '@/lib/api';
import { errorMessage } from '@/lib/error-message';
import type { Workspace } from '@/lib/workspace';

import { useCreateWorkspace } from '../api/workspaces';

/** The longest workspace name the server takes. */
export const MAX_WORKSPACE_NAME = 200;

/** "New workspace": its name, then `onCreated` with the workspace (the caller switches to it). */
export function CreateWorkspaceDialog({ onClose, onCreated }: { onClose: () => void; onCreated: (workspace: Workspace) => void }) {
  const { t, i18n } = useTranslation();
  const ids = { name: useId(), hint: useId() };
  const [name, setName] = useState('');
  const create = useCreateWorkspace();
  const fieldCode = isApiError(create.error) ? create.error.fields.name : undefined;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    create.mutate(name.trim(), { onSuccess: onCreated });
  };

  return (
    <Dialog title={t('workspace.create.title')} onClose={onClose} className="ws-dialog">
      <form onSubmit={submit} noValidate data-testid="create-workspace-form">
        <p className="field__hint" id={ids.hint}>
          {t('workspace.create.intro')}
        </p>
        <div className="field">
          <Label htmlFor={ids.name}>{t('workspace.fields.name')}</Label>
          <Input
            id={ids.name}
            value={name}
            required
            maxLength={MAX_WORKSPACE_NAME}
            autoComplete="off"
            aria-describedby={fieldCode ? `${ids.name}-error` : ids.hint}
            aria-invalid={fieldCode ? true : undefined}
            onChange={(event) => setName(event.target.value)}
            data-testid="workspace-name-input"
          />
          {fieldCode ? (
            <p id={`${ids.name}-error`} className="form-error">
              {t(fieldErrorKey(fieldCode))}
            </p>
          ) : null}
        </div>
        {create.isError && !fieldCode ? <Banner variant="error">{errorMessage(t, i18n.language, create.error)}</Banner> : null}
        <div className="form-actions">
          <Button type="submit" disabled={create.isPending || name.trim() === ''} data-testid="create-workspace-submit">
            {create.isPending ? t('workspace.create.creating') : t('workspace.create.submit')}
          </Button>
          <Button variant="secondary" onClick={onClose}>
            {t('common.cancel')}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
