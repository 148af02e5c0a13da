// What the browser tests share: the environment, checks that print what they checked, and axe-core.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));

/** must is the environment variable name, or exit 2 saying it is missing. */
export function must(name) {
  const v = process.env[name];
  if (!v) { console.error(`${path.basename(process.argv[1])}: ${name} is not set`); process.exit(2); }
  return v;
}

let softFailures = 0;
/** check prints what it checked; a failure throws (HUB_CONSOLE_SOFT=1: prints FAIL and goes on). */
export function check(ok, what) {
  if (!ok && process.env.HUB_CONSOLE_SOFT === "1") { softFailures++; console.log(`FAIL ${what}`); return; }
  if (!ok) throw new Error(`check failed: ${what}`);
  console.log(`ok  ${what}`);
}
/** softFailed says whether a check failed under HUB_CONSOLE_SOFT=1. */
export function softFailed() { return softFailures > 0; }

/** shows says whether the locator shows up within the timeout (for a check, rather than a throw). */
export function shows(locator) {
  return locator.waitFor().then(() => true, () => false);
}

/**
 * axe runs axe-core on the page (or the part the selector names), prints every violation under the
 * label what, and returns them all and the serious or critical ones.
 */
export async function axe(page, what, selector) {
  await page.evaluate(readFileSync(path.join(here, "../node_modules/axe-core/axe.min.js"), "utf8"));
  const r = await page.evaluate((sel) => window.axe.run(sel ?? document, { resultTypes: ["violations"] }), selector);
  for (const v of r.violations) console.log(`axe${what ? ` (${what})` : ""} ${v.impact}: ${v.id} (${v.nodes.length}) ${v.help}`);
  return { all: r.violations, serious: r.violations.filter((v) => v.impact === "serious" || v.impact === "critical") };
}
