import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

// axe-core runs inside the page. The dashboard's CSP allows only its own scripts, so the source is
// evaluated through the browser's debugging protocol rather than added as a <script>.
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Violation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

interface AxeFindings {
  /** Rules that found nothing wrong: proof that axe ran at all. */
  rulesPassed: number;
  violations: Violation[];
}

declare const axe: {
  run(
    context: object,
    options: object,
  ): Promise<{ passes: unknown[]; violations: Array<{ id: string; impact?: string | null; help: string; nodes: Array<{ target: unknown[] }> }> }>;
};
declare const document: { querySelector(selector: string): object | null };

export interface AxeOptions {
  /** A CSS selector for the part of the page to check; the whole document without one. */
  scope?: string;
  /** Only the rules with these tags (e.g. 'wcag2aa'); every rule without them. */
  tags?: readonly string[];
}

function isSerious(violation: Violation): boolean {
  return violation.impact === 'serious' || violation.impact === 'critical';
}

/** axe-core's serious and critical findings on the page as it is now. */
export async function seriousViolations(page: Page, options: AxeOptions = {}): Promise<Violation[]> {
  return (await findings(page, options)).violations.filter(isSerious);
}

/** The same, one line each, after checking that axe ran its rules: for `assert.deepEqual(…, [])`. */
export async function seriousAccessibilityProblems(page: Page, options: AxeOptions = {}): Promise<string[]> {
  const found = await findings(page, options);
  assert.ok(found.rulesPassed > 10, 'axe-core ran its rules');
  return found.violations
    .filter(isSerious)
    .map((violation) => `${violation.id}: ${violation.help} (${violation.targets.join(', ')})`);
}

async function findings(page: Page, options: AxeOptions): Promise<AxeFindings> {
  // Once per document: a page checked again after a change in place (another colour scheme or
  // width, a dialog opened) keeps the axe it was given.
  if (!(await page.evaluate(() => typeof axe !== 'undefined'))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(
    async ({ scope, tags }) => {
      const context = scope === null ? document : (document.querySelector(scope) ?? document);
      const result = await axe.run(context, tags === null ? {} : { runOnly: { type: 'tag', values: tags } });
      return {
        rulesPassed: result.passes.length,
        violations: result.violations.map((violation) => ({
          id: violation.id,
          impact: violation.impact ?? null,
          help: violation.help,
          targets: violation.nodes.map((node) => node.target.join(' ')),
        })),
      };
    },
    { scope: options.scope ?? null, tags: options.tags === undefined ? null : [...options.tags] },
  );
}
