import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate, useParams, useSearchParams } from 'react-router';

import { ContentLayout } from '@/components/layouts/content-layout';
import { simulationQueryOptions, type CreativeOption } from '@/features/simulation/api/simulations';
import { SimulationList } from '@/features/simulation/components/simulation-list';
import { SimulationWorkspace } from '@/features/simulation/components/simulation-workspace';
import { useWorkspace } from '@/lib/workspace';

import { paths } from '@/app/router';
import { SubjectReview } from '@/app/subject-review';

/**
 * `/simulation` (a new simulation; `?creative=…&location=…` pre-select either or both) and
 * `/simulation/:id` (a saved one): the editor (configuration · adjustments · preview), then the
 * list of saved simulations. A viewer of the workspace sees a saved simulation's render and
 * legibility, not the editor, and no new simulation. A saved simulation with a render has its
 * comments and approval under it, for every member.
 */
export default function SimulationRoute() {
  const { t } = useTranslation();
  const { id } = useParams();
  const [search] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  // The editor's creative, which the batch dialog of the list starts with.
  const [creative, setCreative] = useState<CreativeOption | null>(null);
  const { canEdit } = useWorkspace();
  // The same query as the editor's (shared cache): whether there is a render to review.
  const saved = useQuery({ ...simulationQueryOptions(id ?? ''), enabled: Boolean(id) });
  const reviewable = id && saved.data?.id === id && saved.data.output ? id : null;
  return (
    <ContentLayout
      title={t('simulation.title')}
      actions={
        canEdit ? (
          <Link className="ui-button ui-button--primary ui-button--md" to={paths.simulation} data-testid="new-simulation">
            {t('simulation.new')}
          </Link>
        ) : null
      }
    >
      <SimulationWorkspace
        readOnly={!canEdit}
        id={id}
        creativeId={search.get('creative')}
        locationId={search.get('location')}
        navigationKey={location.key}
        // The saved simulation takes the draft's place in the history: Back must not return to
        // the draft, whose save would make a second simulation. The editor stays, and so does the scroll.
        onCreated={(created) => void navigate(paths.simulationOf(created), { replace: true, preventScrollReset: true })}
        onCreativeChange={setCreative}
      />
      {reviewable ? <SubjectReview key={`review-${reviewable}`} subject={{ kind: 'simulation', id: reviewable }} /> : null}
      <SimulationList
        readOnly={!canEdit}
        pathOf={paths.simulationOf}
        currentId={id}
        onDeletedCurrent={() => void navigate(paths.simulation)}
        currentCreative={creative}
      />
    </ContentLayout>
  );
}
