import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Banner } from '@/components/ui/banner';
import { Spinner } from '@/components/ui/spinner';
import { apiErrorKey } from '@/lib/api';

import { useSimulationLiveUpdates } from '../api/live-updates';
import { simulationQueryOptions, type CreativeOption } from '../api/simulations';

import { LegibilityPanel } from './legibility-panel';
import { SimulationEditor } from './simulation-editor';
import { SimulationResult } from './simulation-result';

export type SimulationWorkspaceProps = {
  /** The saved simulation to open, or none for a new one. */
  id?: string;
  creativeId?: string | null;
  locationId?: string | null;
  /** Changes on every navigation (the router's location key): "New simulation" starts afresh. */
  navigationKey: string;
  onCreated: (id: string) => void;
  /** The creative chosen in the editor (or none). */
  onCreativeChange?: (creative: CreativeOption | null) => void;
  /** A viewer of the workspace: a saved simulation's render and legibility, no editor. */
  readOnly?: boolean;
};

/**
 * The editor for `/simulation` (new, possibly pre-selected by a deep link) or `/simulation/:id`
 * (a saved one, live). A simulation this editor has just created keeps the same editor (its
 * state, its preview) when the page moves to the new address.
 */
export function SimulationWorkspace({ id, creativeId, locationId, navigationKey, onCreated, onCreativeChange, readOnly = false }: SimulationWorkspaceProps) {
  const { t } = useTranslation();
  useSimulationLiveUpdates();
  const [aliases] = useState(() => new Map<string, string>());
  const newKey = `new:${navigationKey}:${creativeId ?? ''}:${locationId ?? ''}`;
  const query = useQuery({ ...simulationQueryOptions(id ?? ''), enabled: Boolean(id) });

  if (readOnly) {
    if (!id) return null;
    if (query.isPending) return <Spinner />;
    if (query.isError) return <Banner variant="error">{t(apiErrorKey(query.error))}</Banner>;
    return (
      <div className="sim-read-only" data-testid="simulation-read-only">
        <h2 className="sim-read-only__title">{query.data.name}</h2>
        <p className="field__hint">
          {[query.data.creative?.name, query.data.location?.name].filter(Boolean).join(' · ')}
        </p>
        <SimulationResult simulation={query.data} readOnly />
        <LegibilityPanel simulation={query.data} />
      </div>
    );
  }
  if (!id) {
    return (
      <SimulationEditor
        key={newKey}
        simulation={null}
        creativeId={creativeId}
        locationId={locationId}
        onCreativeChange={onCreativeChange}
        onCreated={(created) => {
          aliases.set(created, newKey);
          onCreated(created);
        }}
      />
    );
  }
  const key = aliases.get(id) ?? id;
  if (query.isPending) return <Spinner />;
  if (query.isError) return <Banner variant="error">{t(apiErrorKey(query.error))}</Banner>;
  return <SimulationEditor key={key} simulation={query.data} onCreated={onCreated} onCreativeChange={onCreativeChange} />;
}
