import { QueryClient } from '@tanstack/react-query';
import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';

import type * as api from '@/lib/api';
import { ApiError, postForm, type FormAnswer, type FormOptions } from '@/lib/api';
import { i18n } from '@/lib/i18n';
import { mockApi } from '@/testing/api-mock';
import { fakeSession, resetAuthMock } from '@/testing/auth-mock';
import { renderApp } from '@/testing/render';

vi.mock('@/lib/auth', () => import('@/testing/auth-mock'));
vi.mock('@/lib/api', async (importOriginal) => ({
  ...(await importOriginal<typeof api>()),
  postForm: vi.fn(),
}));

const post = vi.mocked(postForm);

/** An answer of `POST /locations/import`, with its `X-Import-Rows` header. */
function answer(status: number, body: unknown, rows?: number): FormAnswer {
  return { status, body, header: (name) => (name.toLowerCase() === 'x-import-rows' && rows !== undefined ? String(rows) : null) };
}

/** What the page sent: the path, and the form's parts by name. */
function sent(index: number) {
  const [path, form] = post.mock.calls[index] as [string, () => FormData, FormOptions];
  const body = form();
  return { path, file: body.get('file'), photos: body.get('photos'), dryRun: body.get('dry_run') };
}

const csv = () => new File(['name,postcode\nGare,91000\n'], 'inventaire.csv', { type: 'text/csv' });
const zip = () => new File(['PK'], 'photos.zip', { type: 'application/zip' });

beforeEach(() => {
  resetAuthMock(fakeSession());
  post.mockReset();
  mockApi(({ method, path }) => (method === 'GET' && path === '/locations' ? { body: { items: [], next_cursor: null } } : undefined));
});

describe('inventory import page', () => {
  it('is linked from the locations list', async () => {
    const { user, router } = renderApp('/locations');
    await user.click(await screen.findByRole('link', { name: 'Importer un inventaire' }));
    expect(router.state.location.pathname).toBe('/locations/import');
    expect(await screen.findByRole('heading', { level: 1, name: 'Importer un inventaire' })).toBeInTheDocument();
  });

  it('checks the file and lists each row’s errors, translated, without offering to import', async () => {
    post.mockResolvedValue(
      answer(
        200,
        {
          created: [],
          errors: [
            { row: 3, field: 'postcode', code: 'too_long' },
            { row: 3, field: 'photo', code: 'not_found' },
            { row: 5, field: 'format', code: 'invalid_value' },
          ],
        },
        4,
      ),
    );
    const { user } = renderApp('/locations/import');
    const check = await screen.findByRole('button', { name: 'Vérifier le fichier' });
    expect(check).toBeDisabled();
    await user.upload(screen.getByLabelText("Fichier d'inventaire (CSV ou XLSX)"), csv());
    await user.upload(screen.getByLabelText('Photos (ZIP, facultatif)'), zip());
    await user.click(check);

    const preview = await screen.findByRole('region', { name: "Aperçu de l'import" });
    const check0 = sent(0);
    expect([check0.path, check0.dryRun]).toEqual(['/locations/import', 'true']);
    expect((check0.file as File).name).toBe('inventaire.csv');
    expect((check0.photos as File).name).toBe('photos.zip');
    expect(preview).toHaveTextContent('4 lignes lues dans « inventaire.csv ».');
    expect(preview).toHaveTextContent("2 lignes à corriger. Rien ne sera importé tant qu'il reste une erreur");
    const rows = within(screen.getByTestId('import-errors')).getAllByRole('row').slice(1);
    const text = (cell: HTMLElement) => cell.textContent?.replace(/\s+/g, ' ');
    expect(rows.map((row) => within(row).getAllByRole('cell').map(text))).toEqual([
      ['3', 'Code postal postcode', 'Ce texte est trop long.'],
      ['3', 'Photo photo', "Ce fichier n'est pas dans le ZIP de photos."],
      ['5', 'Format format', 'Format inconnu : utilisez un format de la liste, par exemple « billboard_4x3 » ou « Panneau 4 × 3 m ».'],
    ]);
    expect(screen.queryByTestId('import-submit')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Vérifier à nouveau' })).toBeEnabled();
  });

  it('imports after a clean check, with upload progress, then links to the refreshed list', async () => {
    const invalidate = vi.spyOn(QueryClient.prototype, 'invalidateQueries');
    post.mockResolvedValueOnce(answer(200, { created: [], errors: [] }, 3));
    let finish: (value: FormAnswer) => void = () => {};
    post.mockImplementationOnce((_path, _form, options) => {
      options?.onProgress?.(40, 80);
      return new Promise((resolve) => {
        finish = resolve;
      });
    });
    const { user, router } = renderApp('/locations/import');
    await user.upload(await screen.findByTestId('import-file'), csv());
    await user.click(screen.getByRole('button', { name: 'Vérifier le fichier' }));
    expect(await screen.findByText('Tout est correct : 3 emplacements seront créés.')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Importer 3 emplacements' }));
    expect(sent(1)).toMatchObject({ dryRun: 'false', photos: null });
    const progress = await screen.findByRole('progressbar', { name: 'Envoi des fichiers' });
    expect(progress).toHaveAttribute('value', '50');
    expect(screen.getByText('Envoi : 50 %')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Vérifier à nouveau' })).toBeDisabled();

    finish(answer(200, { created: ['l1', 'l2', 'l3'], errors: [] }, 3));
    expect(await screen.findByText('3 emplacements importés.')).toBeInTheDocument();
    await waitFor(() => expect(invalidate).toHaveBeenCalledWith({ queryKey: ['locations'] }));
    await user.click(screen.getByRole('link', { name: 'Voir les emplacements' }));
    expect(router.state.location.pathname).toBe('/locations');
    invalidate.mockRestore();
  });

  it('says why a file is refused whole', async () => {
    const refused = (fields: Record<string, string>, details: Record<string, unknown> = {}) =>
      answer(422, { code: 'validation_failed', message: 'x', details: { fields, ...details }, created: [], errors: [] });
    post.mockResolvedValueOnce(refused({ file: 'invalid', name: 'required' }));
    post.mockResolvedValueOnce(refused({ file: 'too_many' }, { max_rows: 5000 }));
    post.mockRejectedValueOnce(new ApiError(413, 'file_too_large', 'x', { max_bytes: 10 }));
    const { user } = renderApp('/locations/import');
    await user.upload(await screen.findByTestId('import-file'), csv());
    await user.click(screen.getByRole('button', { name: 'Vérifier le fichier' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      "Le fichier n'a pas de colonne « nom » (ou « name ») : sa première ligne doit nommer les colonnes.",
    );
    await user.click(screen.getByRole('button', { name: 'Vérifier le fichier' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent(/Le fichier a plus de 5\s000 lignes/));
    await user.click(screen.getByRole('button', { name: 'Vérifier le fichier' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('Ce fichier est trop volumineux.'));
    expect(screen.queryByTestId('import-preview')).not.toBeInTheDocument();
  });

  it('shows in English the rows an import refused', async () => {
    await i18n.changeLanguage('en');
    post.mockResolvedValueOnce(answer(200, { created: [], errors: [] }, 2));
    post.mockResolvedValueOnce(
      answer(
        422,
        { code: 'validation_failed', message: 'x', details: {}, created: [], errors: [{ row: 2, field: 'photo', code: 'invalid' }] },
        2,
      ),
    );
    const { user } = renderApp('/locations/import');
    await user.upload(await screen.findByLabelText('Inventory file (CSV or XLSX)'), csv());
    await user.click(screen.getByRole('button', { name: 'Check the file' }));
    await user.click(await screen.findByRole('button', { name: 'Import 2 locations' }));
    const preview = await screen.findByTestId('import-preview');
    await waitFor(() => expect(preview).toHaveTextContent('Nothing was imported: rows were refused during the import.'));
    expect(preview).toHaveTextContent('1 row to fix.');
    expect(within(preview).getByRole('table')).toHaveTextContent('This image is truncated or damaged.');
    expect(screen.queryByTestId('import-done')).not.toBeInTheDocument();
  });
});
