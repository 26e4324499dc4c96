import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { Site } from '../api/types';
import { goToSection } from './editorNavigation';
import { sectionPath } from './sections';
import { firstRunSteps } from './firstRun';
import { Button } from '../components/Button';
import { siteInstallQuery } from '../queries';

const HIDDEN_KEY = 'siteward.first-run-hidden';

function hiddenSites(): string[] {
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(HIDDEN_KEY) ?? '[]');
    return Array.isArray(stored) ? stored.filter((each): each is string => typeof each === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * "Get started": a new site's first steps, ticked from what is saved. On the empty sites list
 * (no site given) it shows what lies ahead; in a site it stays until every step is done or the
 * person hides it (remembered in this browser).
 */
export function FirstRunChecklist({ site }: { site?: Site }) {
  const [hidden, setHidden] = useState(() => site !== undefined && hiddenSites().includes(site.id));
  // Where the site's public configuration was fetched from ticks "Put the site on your pages";
  // asked only while the checklist is on screen for a site.
  const install = useQuery({ ...siteInstallQuery(site?.id ?? ''), enabled: site !== undefined && !hidden });
  const steps = firstRunSteps(site, install.data?.fetched_from.length ?? 0);
  const done = steps.filter((step) => step.done).length;
  if (hidden || (site !== undefined && done === steps.length)) return null;

  function hide() {
    if (site === undefined) return;
    localStorage.setItem(HIDDEN_KEY, JSON.stringify([...hiddenSites(), site.id].slice(-200)));
    setHidden(true);
  }

  return (
    <section className="card first-run" aria-labelledby="first-run-title">
      <div className="card-header">
        <div>
          <h2 id="first-run-title">Get started</h2>
          <p>{site === undefined ? 'Create a site, then set it up in a few steps:' : `${done} of ${steps.length} done. Each step ticks itself once it is saved.`}</p>
        </div>
        {site !== undefined && (
          <Button variant="ghost" onClick={hide}>
            Hide
          </Button>
        )}
      </div>
      <ol className="first-run-steps">
        {steps.map((step) => {
          const to = site === undefined ? undefined : sectionPath(site.id, step.section);
          return (
            <li key={step.id} className={step.done ? 'first-run-step first-run-done' : 'first-run-step'}>
              <span className="first-run-mark" aria-hidden="true">
                {step.done ? '✓' : ''}
              </span>
              <span>
                {to === undefined || step.done ? <strong>{step.label}</strong> : (
                  <a href={to} onClick={(event) => goToSection(event, to)}>
                    <strong>{step.label}</strong>
                  </a>
                )}
                <span className="visually-hidden">{step.done ? ' (done)' : ' (to do)'}</span>
                <span className="muted small first-run-hint">{step.hint}</span>
                {step.id === 'install' && site !== undefined && (
                  <a className="small" href={sectionPath(site.id, 'usage')} onClick={(event) => goToSection(event, sectionPath(site.id, 'usage'))}>
                    See its usage
                  </a>
                )}
              </span>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
