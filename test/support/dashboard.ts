// For the dashboard tests: build dist/dashboard (as `npm run build:dashboard` does), and find
// Debian's Chromium for playwright-core. Without a browser the browser tests skip with a printed
// reason, unless QUIVER_REQUIRE_BROWSER_TESTS=1 (CI) makes that a failure.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Screenshots land here (gitignored); the README's picture is copied from it by hand. */
export const screenshotDirectory = join(projectRoot, 'test-artifacts', 'dashboard');

export function buildDashboard(): void {
  execFileSync(process.execPath, [join(projectRoot, 'scripts', 'build-dashboard.mjs')], { cwd: projectRoot, stdio: 'pipe', timeout: 60_000 });
}

export const browserTestsRequired = process.env.QUIVER_REQUIRE_BROWSER_TESTS === '1';

/** QUIVER_CHROMIUM when set (only that path), else the usual Debian and Ubuntu paths; undefined when none exists. */
export function findChromium(): string | undefined {
  const chosen = process.env.QUIVER_CHROMIUM;
  const candidates = chosen ? [chosen] : ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
  return candidates.find((candidate) => existsSync(candidate));
}
