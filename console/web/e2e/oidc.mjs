// The console's sign-in through the identity provider, in a real browser: playwright-core driving
// Debian's chromium against `hub dev --fake-model` pointed at an OpenID Provider (zitadel/oidc's op,
// run by the Go test on loopback; its login page takes test-user2 / verysecure).
//
//   HUB_CONSOLE_URL   the banner's console link, http://127.0.0.1:PORT/#token=… (the Demo space's owner)
//   HUB_OIDC_ISSUER   the provider's URL
//   HUB_CHROMIUM      the browser (default /usr/bin/chromium)
//
// Each step says what it checks; the first failure ends the run with exit 1.
import { chromium } from "playwright-core";
import { must, check, softFailed, shows, axe } from "./harness.mjs";

const link = must("HUB_CONSOLE_URL");
const issuer = must("HUB_OIDC_ISSUER");
const origin = new URL(link).origin;
const owner = decodeURIComponent(new URL(link).hash.replace(/^#token=/, ""));

async function asOwner(method, p, body) {
  const res = await fetch(origin + p, { method, headers: { Authorization: `Bearer ${owner}`, "Content-Type": "application/json" }, body: body && JSON.stringify(body) });
  return { status: res.status, json: res.status === 204 ? null : await res.json() };
}

/** signInAtProvider fills the provider's login page the browser is on. */
async function signInAtProvider(page) {
  await page.waitForURL((u) => u.href.startsWith(issuer + "/login"));
  await page.fill("#username", "test-user2");
  await page.fill("#password", "verysecure");
  await page.click("button[type=submit]");
}

const browser = await chromium.launch({ executablePath: process.env.HUB_CHROMIUM || "/usr/bin/chromium", headless: true, args: ["--no-sandbox", "--disable-gpu"] });
let failed = false;
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  const authRequests = [];
  page.on("request", (r) => { if (r.url().startsWith(issuer + "/auth?")) authRequests.push(new URL(r.url())); });

  // --- the sign-in form offers both ways ----------------------------------------------------
  await page.goto(origin + "/");
  await page.locator("#token-input").waitFor();
  check(await shows(page.locator("#signin-oidc", { hasText: "Sign in with your organization" })), "the sign-in form offers the token and, beside it, Sign in with your organization");
  const axeForm = await axe(page, "sign-in with a provider");
  check(axeForm.serious.length === 0, `axe-core finds no serious or critical violations on the sign-in form with both ways (${axeForm.all.length} minor)`);

  // --- through the provider's login page, back signed in ------------------------------------
  await page.click("#signin-oidc");
  await signInAtProvider(page);
  await page.locator("#nospace-title", { hasText: "Welcome, Test User2" }).waitFor();
  const auth = authRequests[0];
  check(auth && auth.searchParams.get("code_challenge_method") === "S256" && auth.searchParams.get("code_challenge") && auth.searchParams.get("nonce"),
    "the browser went to the provider with a PKCE challenge (S256) and a nonce");
  const cookies = await context.cookies(origin);
  const session = cookies.find((c) => c.name === "hub_session");
  check(session && session.httpOnly && session.sameSite === "Strict", "back from the provider, the browser holds Hub's session as an HttpOnly, SameSite=Strict cookie");
  check(!cookies.some((c) => c.name === "hub_oidc"), "the sign-in's own cookie is used up");
  check(new URL(page.url()).origin === origin && !page.url().includes("code=") && !page.url().includes("token"), "the address holds no code and no token");
  check(await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }).includes("hub_")) === false, "no token in the page's storage");
  const personId = (await page.locator("#person-id").innerText()).trim();
  check(/^person_/.test(personId), `a first sign-in is a new person in no space, shown the id an owner adds them by (${personId})`);
  const axeNone = await axe(page, "no space yet");
  check(axeNone.serious.length === 0, `axe-core finds no serious or critical violations on the no-space page (${axeNone.all.length} minor)`);

  // --- an owner adds them; they chat --------------------------------------------------------
  const demo = (await asOwner("GET", "/api/spaces")).json.spaces[0];
  const added = await asOwner("POST", `/api/spaces/${demo.id}/people`, { personId, role: "editor" });
  check(added.status === 201 && added.json.name === "Test User2", "the Demo space's owner adds the signed-in person by their id");
  await page.click("#nospace-again");
  await page.locator("#pill").filter({ hasText: "Idle" }).waitFor();
  check(await page.inputValue("#space") === demo.id, "Check again opens the console in the space they were added to");
  await page.fill("#input", "hello");
  await page.press("#input", "Enter");
  check(await shows(page.locator("article.assistant .text", { hasText: "I am fakemodel" })), "signed in through the provider, they send a message and the reply streams");
  const mine = await page.evaluate(async () => (await fetch("/api/me/tokens")).json());
  check(mine.tokens.length === 1 && mine.tokens[0].name === "browser sign-in through the identity provider" && mine.tokens[0].expiresAt,
    "their tokens list the sign-in's own token, expiring with the session");

  // --- Sign out; a sign-in the provider refused says why ------------------------------------
  await page.click("#signout");
  await page.locator("#token-input").waitFor();
  check(!(await context.cookies(origin)).some((c) => c.name === "hub_session"), "Sign out ends the session");
  await page.locator("#signin-oidc").click();
  await page.waitForURL((u) => u.href.startsWith(issuer + "/login"));
  const state = authRequests[authRequests.length - 1].searchParams.get("state");
  // The provider answers with an error instead of a code, as when the person cancels there.
  await page.goto(`${origin}/api/session/oidc/callback?error=access_denied&state=${encodeURIComponent(state)}`);
  await page.locator(".signin .error", { hasText: "Your organization's sign-in was cancelled." }).waitFor();
  check(new URL(page.url()).hash === "" && !(await context.cookies(origin)).some((c) => c.name === "hub_session"), "a refused sign-in says why on the sign-in form");

  check(pageErrors.length === 0, `no script errors on the page${pageErrors.length ? ": " + pageErrors.join("; ") : ""}`);
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  await browser.close();
}
process.exit(failed || softFailed() ? 1 : 0);
