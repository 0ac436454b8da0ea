import { useTranslation } from 'react-i18next';

const SECTIONS = ['configuration', 'adjustments', 'preview'] as const;

/** The three areas of the rendering page, to be filled in by a later release. */
export function SimulationSections() {
  const { t } = useTranslation();
  return (
    <div className="sections">
      {SECTIONS.map((section) => (
        <section key={section} className="card" aria-labelledby={`simulation-${section}`}>
          <h2 id={`simulation-${section}`} className="card__title">
            {t(`simulation.${section}`)}
          </h2>
        </section>
      ))}
    </div>
  );
}
