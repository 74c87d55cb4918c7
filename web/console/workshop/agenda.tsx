/*
 * The Agenda tab: preparing a workshop. Its steps in order, each with its instructions, what it
 * lets participants do and see, its screens' view and its illustration; the workshop's settings
 * and vote budgets; its criteria and sections; its canvas. Everything follows other facilitators'
 * changes live (the steps through the scope, the rest through the log's events).
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { Panel } from '../forms';
import { rich, t } from '../i18n';
import { CanvasPanel } from './agenda/canvas';
import { Criteria, Sections, useCriteria } from './agenda/criteria';
import { WorkshopSettings } from './agenda/settings';
import { StepEditor } from './agenda/step-editor';
import { StepList } from './agenda/steps';
import type { WorkshopScope } from './context';

export function Agenda({ scope }: { scope: WorkshopScope }) {
  const selected = useSignal<string | null>(null);
  const steps = scope.steps.value;
  const criteria = useCriteria(scope);
  const step = steps.find((each) => each.id === selected.value);
  // The first step is open in the editor until another is picked (or after the open one is deleted).
  useEffect(() => {
    if (!step && steps.length > 0) selected.value = steps[0]!.id;
  }, [step, steps]);

  return (
    <div class="agenda">
      <Panel title={t('console.agenda.panel.steps')} class="agenda-steps">
        <div class="steps-layout">
          <StepList scope={scope} selected={selected} />
          {step ? (
            <div class="step-detail">
              <h3>
                {rich('console.agenda.step_heading', {
                  number: steps.indexOf(step) + 1,
                  name: step.name,
                  title: (words) => <span class="step-title">{words}</span>,
                })}
              </h3>
              <StepEditor key={step.id} scope={scope} step={step} criteria={criteria.value.value ?? []} />
            </div>
          ) : (
            <p class="empty">{t('console.agenda.no_step')}</p>
          )}
        </div>
      </Panel>
      <div class="agenda-columns">
        <Panel title={t('console.agenda.panel.settings')}>
          <WorkshopSettings scope={scope} />
        </Panel>
        <div>
          <Panel title={t('console.agenda.panel.criteria')}>
            <p class="hint">{t('console.agenda.criteria_hint')}</p>
            <Criteria scope={scope} criteria={criteria} />
          </Panel>
          <Panel title={t('console.agenda.panel.sections')}>
            <p class="hint">{t('console.agenda.sections_hint')}</p>
            <Sections scope={scope} />
          </Panel>
        </div>
      </div>
      <Panel title={t('console.agenda.panel.canvas')}>
        <CanvasPanel scope={scope} />
      </Panel>
    </div>
  );
}
