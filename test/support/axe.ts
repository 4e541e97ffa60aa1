import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeProblem {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core (the accessibility engine browsers' own audit tools use) on the page as it is now and
 * returns its critical and serious violations. Injected through the DevTools protocol, so the
 * inbox's Content-Security-Policy (no inline script) stays on; open shadow roots (the widget) are
 * checked too.
 */
export async function seriousA11yProblems(page: Page): Promise<AxeProblem[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(AXE_SOURCE);
  return (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map((n) => JSON.stringify(n.target)) })))`)) as AxeProblem[];
}
