// The console end to end in a real browser: playwright-core driving
// Debian's chromium against a running `hub dev --fake-model`.
//
//   HUB_CONSOLE_URL   the banner's console link, http://127.0.0.1:PORT/#token=…
//   HUB_FAKEMODEL_URL the scripted model's base URL (…/v1); Hub's catalog has two models on it
//   HUB_WEBHOOK_URL   a connected app whose first post gets no answer (GET /posts counts them)
//   HUB_OTHER_TOKEN   a token of another person, in a space of their own (signed in after Sign out)
//   HUB_CHROMIUM      the browser (default /usr/bin/chromium)
//   HUB_SCREENSHOTS   a directory to write each state's picture to (optional)
//   HUB_METRICS       a file to write the figures to as JSON (optional)
//   HUB_CONSOLE_JS    a directory of built scripts served instead of Hub's js/ (optional: to see
//                     the checks fail against an older build, with HUB_CONSOLE_SOFT=1)
//   HUB_CONSOLE_SOFT  1: a failed check is printed ("FAIL") and the run goes on (exit 1 at the end)
//
// Each step says what it checks; the first failure ends the run with exit 1.
import { chromium } from "playwright-core";
import { must, check, softFailed, shows, axe } from "./harness.mjs";
import { readFileSync, writeFileSync, mkdirSync, readdirSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const link = must("HUB_CONSOLE_URL");
const fakeModel = must("HUB_FAKEMODEL_URL").replace(/\/v1\/?$/, "");
const webhook = must("HUB_WEBHOOK_URL");
const otherToken = must("HUB_OTHER_TOKEN");
const shots = process.env.HUB_SCREENSHOTS || "";
const origin = new URL(link).origin;
const token = decodeURIComponent(new URL(link).hash.replace(/^#token=/, ""));
const timeout = 20_000;
const figures = {};

async function shot(page, name) {
  if (!shots) return;
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, `${name}.png`) });
}
async function hub(method, p, body, as = token) {
  const res = await fetch(origin + p, { method, headers: { Authorization: `Bearer ${as}`, "Content-Type": "application/json" }, body: body && JSON.stringify(body) });
  return { status: res.status, json: res.status === 204 ? null : await res.json() };
}
/** focusOn says which element has the focus (its id or first class), "BODY" when none has. */
async function focusOn(page) {
  return page.evaluate(() => { const e = document.activeElement; return !e || e === document.body ? "BODY" : (e.id || e.classList[0] || e.tagName); });
}

// A connected app (a webhook) for the unknown receipt; its writes need connectedAppWrites.
const conn = await hub("POST", `/api/spaces/${await spaceId()}/connections`, { kind: "webhook", name: "Team updates", url: webhook + "/hook" });
check(conn.status === 201, "a webhook is connected to the space");
check((await hub("PATCH", "/api/me/settings", { connectedAppWrites: true })).status === 200, "connected-app writes are allowed");

// A slow answer to stop mid-stream (and to see "Thinking…" count seconds),
// and a model error once, put in front of the default script's rules.
const script = await (await fetch(`${fakeModel}/fake/script`)).json();
script.rules.unshift(
  { name: "a long story", match: { lastUser: "(?i)tell me a long story", afterToolResult: false },
    reply: { text: "Once upon a time ".repeat(200), firstTokenDelay: "6s", chunkSize: 6, chunkDelay: "60ms" } },
  // Resume asks the model to continue the reply so far: the story goes on, as slowly.
  { name: "the long story goes on", match: { lastUser: "cut off by a pause", afterToolResult: false },
    reply: { text: "Once upon a time ".repeat(200), firstTokenDelay: "1s", chunkSize: 6, chunkDelay: "60ms" } },
  { name: "post to the team", match: { lastUser: "(?i)tell the team we shipped", afterToolResult: false },
    reply: { toolCalls: [{ name: "apps_post_update", arguments: { connectionId: "CONNECTION", text: "Shipped" } }] } },
  { name: "posted", match: { lastUser: "(?i)tell the team we shipped", afterToolResult: true }, reply: { text: "Proposed: an update to the team." } },
  { name: "add two tasks", match: { lastUser: "(?i)add tasks called (.+) and (.+)$", offered: "hub_create_tasks", afterToolResult: false },
    reply: { toolCalls: [
      { name: "hub_create_tasks", arguments: { tasks: [{ title: "{{index .Groups 1}}" }] } },
      { name: "hub_create_tasks", arguments: { tasks: [{ title: "{{index .Groups 2}}" }] } }] } },
  { name: "a slow page", match: { lastUser: "(?i)read the slow page", afterToolResult: false },
    reply: { toolCalls: [{ name: "hub_read_web_page", arguments: { url: "SLOWPAGE" } }] } },
  { name: "one write and one that fails", match: { lastUser: "(?i)sweep the porch and finish the missing task", afterToolResult: false },
    reply: { toolCalls: [
      { name: "hub_create_tasks", arguments: { tasks: [{ title: "Sweep the porch" }] } },
      { name: "hub_update_tasks", arguments: { tasks: [{ id: "tsk_missing", status: "done" }] } }] } },
  { name: "a plan of two steps", match: { lastUser: "(?i)run the launch plan in order", afterToolResult: false },
    reply: { toolCalls: [{ name: "hub_run_workflow", arguments: { steps: [
      { id: "project", tool: "hub_create_project", input: { name: "Launch" } },
      { id: "tasks", tool: "hub_create_tasks", input: { tasks: [{ title: "Write the announcement", projectId: { $ref: "project.project.id" } }] } }] } }] } },
  { name: "planned", match: { lastUser: "(?i)run the launch plan in order", afterToolResult: true }, reply: { text: "I proposed the launch plan." } },
  { name: "a widget", match: { lastUser: "(?i)where is the widget", afterToolResult: false },
    reply: { text: "It is [the blue widget](hub://widget/wdg_1), as far as I know." } },
  // A search of the space's files whose reply cites the passage found by its link.
  { name: "search the files", match: { lastUser: "(?im)search the files for (.+)$", afterToolResult: false },
    reply: { toolCalls: [{ name: "hub_search_files", arguments: { query: "{{index .Groups 1}}" } }] } },
  { name: "cite the passage", match: { lastUser: "(?i)search the files for", afterToolResult: true },
    reply: { text: "{{with find \"hub://file/[a-z0-9_]+#[0-9a-f]+\" .LastToolResult}}The notes say so ([notes.txt]({{.}})).{{else}}Nothing found.{{end}}" } },
  { name: "fail once", times: 1, match: { lastUser: "(?i)fail once", afterToolResult: false },
    reply: { fault: { kind: "http_error", status: 400, message: "the scripted model refuses this once" } } },
  // The agent's work (the Agents screen): sent now, and by its schedule's Run now.
  { name: "the garden brief", match: { lastUser: "(?i)draft the garden brief", afterToolResult: false },
    reply: { text: "Garden brief: the plants are watered and the leaves are raked." } },
);
const put = await fetch(`${fakeModel}/fake/script`, { method: "PUT", body: JSON.stringify(script).replace("CONNECTION", conn.json.id).replace("SLOWPAGE", webhook + "/slow") });
check(put.status === 204, "the scripted model takes the test's rules");

const browser = await chromium.launch({ executablePath: process.env.HUB_CHROMIUM || "/usr/bin/chromium", headless: true, args: ["--no-sandbox", "--disable-gpu"] });
let failed = false;
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(timeout);
  if (process.env.HUB_CONSOLE_JS) {
    await context.route("**/js/*.js", (r) => r.fulfill({ contentType: "text/javascript", body: readFileSync(path.join(process.env.HUB_CONSOLE_JS, path.basename(new URL(r.request().url()).pathname))) }));
  }
  const page = await context.newPage();
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(String(e)));

  // --- signed in from the banner's link ------------------------------------------------------
  // The activity stream's answer is held: until its first frame the pill says Checking….
  let releaseStream, streamAsked;
  const streamHeld = new Promise((r) => { releaseStream = r; });
  const asked = new Promise((r) => { streamAsked = r; });
  const activityStream = "**/api/agent/stream?*";
  await page.route(activityStream, async (r) => { streamAsked(); await streamHeld; await r.continue(); });
  await page.goto(link);
  await asked;
  await page.locator("#chat-title").waitFor();
  check(await page.locator("#pill").innerText() === "Checking…" && await page.locator("#stop-all").isDisabled(), "before the activity stream's first frame the pill says Checking…, Stop all disabled");
  await shot(page, "00-checking");
  releaseStream();
  await page.locator("#pill").filter({ hasText: "Idle" }).waitFor();
  await page.unroute(activityStream);
  check(new URL(page.url()).hash === "", "the token is taken out of the address bar");
  // The token went for a session: an HttpOnly, SameSite=Strict cookie the page's script cannot read; the tab keeps no token.
  const sessionCookie = (await context.cookies()).find((c) => c.name === "hub_session");
  check(!!sessionCookie && sessionCookie.httpOnly && sessionCookie.sameSite === "Strict" && !(await page.evaluate(() => document.cookie)).includes("hub_session")
    && !(await page.evaluate(() => JSON.stringify(sessionStorage) + JSON.stringify(localStorage))).includes(token),
    "the link's token is exchanged for an HttpOnly, SameSite=Strict session cookie; no storage of the page holds the token");
  // A request signed in by the cookie that changes something needs the CSRF header.
  const csrf = await page.evaluate(async (sp) => {
    const post = (headers) => fetch("/api/assistant/conversations", { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify({ spaceId: sp, title: "csrf" }) });
    const bare = await post({});
    const withHeader = await post({ "X-Hub-CSRF": "1" });
    const made = await withHeader.json();
    await fetch(`/api/assistant/conversations/${made.id}`, { method: "DELETE", headers: { "X-Hub-CSRF": "1" } });
    return [bare.status, withHeader.status];
  }, await spaceId());
  check(csrf[0] === 403 && csrf[1] === 201, `a cookie-signed POST without X-Hub-CSRF is refused (${csrf[0]}); with it, it is done (${csrf[1]})`);
  figures.firstPaintMs = await page.evaluate(() => performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? null);
  await shot(page, "01-signed-in");
  check(await topBarFits(page, 1280), "at desktop width every control of the top bar is on screen");

  // --- another browser, with no session, on a phone (390 px) -------------------------------------
  // It opens on the sign-in form; a `#token=` link pasted into the open tab signs it in (hashchange).
  const phoneContext = await browser.newContext({ viewport: { width: 390, height: 844 } });
  phoneContext.setDefaultTimeout(timeout);
  const phone = await phoneContext.newPage();
  phone.on("pageerror", (e) => pageErrors.push(String(e)));
  await phone.goto(origin + "/");
  await phone.locator("#token-input").waitFor();
  check(await phone.locator(".signin .error").count() === 0, "a browser with no session opens on the sign-in form, with no error");
  await phone.evaluate((t) => { location.hash = "#token=" + encodeURIComponent(t); }, token);
  await phone.locator("#pill").filter({ hasText: "Idle" }).waitFor();
  check(new URL(phone.url()).hash === "", "a #token= link pasted into the open tab signs it in at once, and the token leaves the address");
  check(await topBarFits(phone, 390), "at 390 px the top bar wraps: Space, the pill, Pause, Resume, Stop all and Sign out all on screen, nothing wider than the page");
  await shot(phone, "16-phone");

  // --- a model and effort for one message, from the composer ----------------------------------
  await page.locator("#turn-model option", { hasText: "fakemodel-deep" }).waitFor({ state: "attached" });
  check(await page.locator("#turn-effort").count() === 0, "the composer offers a model (two in the catalog), no effort for one that takes none");
  await page.selectOption("#turn-model", "fakemodel-deep");
  await page.locator("#turn-effort").waitFor();
  await page.selectOption("#turn-effort", "high");
  await shot(page, "01b-turn-model");

  // --- ask → stream → tool rows → Undo -------------------------------------------------------
  await page.fill("#input", "add a task called Water the plants");
  await page.press("#input", "Enter");
  const reply1 = page.locator("article.assistant").last();
  const turn1 = (await hub("GET", `/api/assistant/turns/${await reply1.getAttribute("data-turn")}`)).json;
  check(turn1.model === "fakemodel-deep" && turn1.effort === "high", `the message's turn runs with the composer's model and effort (${turn1.model}, ${turn1.effort})`);
  await page.selectOption("#turn-model", "");
  await page.locator("#turn-effort").waitFor({ state: "detached" });
  const createRow = reply1.locator(".row.phase-done", { hasText: "Create tasks" });
  await createRow.waitFor({ state: "attached" }); // folded once the reply is done
  check(await createRow.locator(".tool").getAttribute("title") === "hub_create_tasks" && !(await createRow.innerText()).includes("hub_"),
    "a tool row names the tool as people read it (“Create tasks”), its name hub_create_tasks only in the title");
  await reply1.locator(".text", { hasText: "Here is the result" }).waitFor();
  await reply1.locator("details.fold summary", { hasText: "1 step · 1 change" }).waitFor();
  check(true, "a write streams its tool row, then folds behind “1 step · 1 change”");
  figures.firstTextMs = await page.evaluate(() => performance.getEntriesByName("hub:first-text").at(-1)?.duration ?? null);
  check((await reply1.locator(".ref", { hasText: "Water the plants" }).count()) > 0, "the record is a link by its title");
  check(!(await reply1.locator("details.fold").evaluate((d) => d.open)), "the fold is closed when no call failed");
  // A record link opens the record panel (the api's read of the task), by keyboard; Escape closes it.
  const waterLink = reply1.locator(".refs .ref", { hasText: "Water the plants" });
  const recordPanel = page.locator("dialog#record");
  const addressBefore = page.url();
  check(/#\/c\/conv_/.test(addressBefore), `the new conversation has its own address (${new URL(addressBefore).hash})`);
  await waterLink.focus();
  await page.keyboard.press("Enter");
  await recordPanel.locator("h2", { hasText: "Water the plants" }).waitFor();
  await recordPanel.locator("dd", { hasText: "todo" }).waitFor();
  check(await recordPanel.locator("dt", { hasText: "Priority" }).count() === 1 && page.url() === addressBefore,
    "a record link opens the record panel: the task's title and fields as the api reads them (the address stays)");
  await shot(page, "02b-record");
  await page.keyboard.press("Escape");
  await recordPanel.waitFor({ state: "hidden" });
  check(await waterLink.evaluate((e) => e === document.activeElement), "Escape closes the record panel; the focus is back on the link");
  await waterLink.click();
  await recordPanel.locator("dd", { hasText: "todo" }).waitFor();
  const axePanel = await axe(page, "record panel", "#record");
  check(axePanel.serious.length === 0, `axe-core finds no serious or critical violations in the record panel (${axePanel.all.length} minor)`);
  await page.keyboard.press("Escape");
  await recordPanel.waitFor({ state: "hidden" });
  await reply1.locator("details.fold summary").click();
  await shot(page, "02-tool-rows");
  await reply1.locator("button.undo").click();
  await reply1.locator("button.redo").waitFor();
  check(await focusOn(page) === "redo", `after Undo the focus is on the row's new button, Redo (${await focusOn(page)})`);
  let tasks = (await hub("GET", `/api/spaces/${await spaceId()}/tasks`)).json.tasks;
  check(!tasks.some((t) => t.title === "Water the plants"), "Undo on the row takes the task away");
  await waterLink.click();
  await recordPanel.locator(".record-error", { hasText: "This task is not there any more" }).waitFor();
  check(await recordPanel.locator("h2").innerText() === "Water the plants", "the record panel of a deleted task says it is not there any more (under the link's title)");
  await recordPanel.locator("#record-close").click();
  await recordPanel.waitFor({ state: "hidden" });
  check(true, "Close shuts the record panel");
  // A record of a kind the api has no read for (a hub:// link in the text): its label and kind, and that.
  await page.fill("#input", "where is the widget");
  await page.press("#input", "Enter");
  await page.locator("article.assistant").last().locator(".text .ref", { hasText: "the blue widget" }).click();
  await recordPanel.locator(".record-none", { hasText: "no read for a widget record" }).waitFor();
  check(await recordPanel.locator("h2").innerText() === "the blue widget" && await recordPanel.locator(".record-kind").innerText() === "widget",
    "a record link of a kind the api cannot read shows its label and kind, and says the api has no read for it");
  await page.keyboard.press("Escape");
  await recordPanel.waitFor({ state: "hidden" });

  // --- preview → Apply → Undo on the receipt --------------------------------------------------
  await page.selectOption("#write-policy", "preview");
  await page.click("#save-settings");
  await page.locator("#notice", { hasText: "Settings saved" }).waitFor();
  check((await hub("GET", "/api/me/settings")).json.writePolicy === "preview", "settings save the write policy");
  await page.fill("#input", "add a task called Buy seeds");
  await page.press("#input", "Enter");
  const reply2 = page.locator("article.assistant").last();
  await reply2.locator("section.proposal", { hasText: "Nothing changes until you apply." }).waitFor();
  await reply2.locator("section.proposal .preview", { hasText: "Buy seeds" }).waitFor();
  await page.locator("#needs-list").waitFor();
  tasks = (await hub("GET", `/api/spaces/${await spaceId()}/tasks`)).json.tasks;
  check(!tasks.some((t) => t.title === "Buy seeds"), "a held write changes nothing before Apply");
  await page.locator("#pill").filter({ hasText: /^Waiting · 1$/ }).waitFor();
  check(true, "the pill says Waiting while the held write waits for the person");
  await page.locator("#needs-list li.needs-waiting", { hasText: "Buy seeds" }).waitFor();
  check(await page.locator("#needs-list li").count() === 1 && await page.locator("#needs-list .empty").count() === 0,
    "beside “Waiting · 1” the Needs me list shows the one write waiting for Apply (not “Nothing waits for you”)");
  await shot(page, "03-preview");
  await reply2.locator("button.apply-one").click();
  await reply2.locator(".receipt.status-succeeded").waitFor();
  check(await focusOn(page) !== "BODY", `after Apply the focus is not lost to the page (${await focusOn(page)})`);
  await page.locator("#pill").filter({ hasText: /^Idle$/ }).waitFor();
  await page.locator("#needs-list .empty", { hasText: "Nothing waits for you." }).waitFor();
  check(true, "once applied nothing waits: the pill says Idle, the Needs me list “Nothing waits for you.”");
  const card = reply2.locator("section.proposal");
  check(await card.locator(".proposal-state").innerText() === "Applied: the receipts below say what changed." && await card.locator(".badge", { hasText: "Applied" }).count() === 1
    && (await card.innerText()).indexOf("Nothing changes until you apply") < 0, "after Apply the card says it was applied, not “Nothing changes until you apply”");
  tasks = (await hub("GET", `/api/spaces/${await spaceId()}/tasks`)).json.tasks;
  check(tasks.some((t) => t.title === "Buy seeds"), "Apply writes the task and shows a succeeded receipt");
  await shot(page, "04-applied");
  await reply2.locator(".receipt button.undo").click();
  await reply2.locator(".receipt button.redo").waitFor();
  tasks = (await hub("GET", `/api/spaces/${await spaceId()}/tasks`)).json.tasks;
  check(!tasks.some((t) => t.title === "Buy seeds"), "Undo on the receipt takes it away again");
  check(await reply2.locator(".receipt.status-undone .badge").innerText() === "undone" && await reply2.locator(".receipt.status-succeeded").count() === 0
    && await card.locator(".badge", { hasText: "Applied, then undone" }).count() === 1 && await card.locator(".proposal-state").innerText() === "Applied, then undone: nothing of it stays.",
    "after Undo the receipt says undone (not succeeded), the card “Applied, then undone”");
  await shot(page, "04c-undone");
  await reply2.locator(".receipt button.redo").click();
  await reply2.locator(".receipt button.undo").waitFor();
  tasks = (await hub("GET", `/api/spaces/${await spaceId()}/tasks`)).json.tasks;
  check(tasks.some((t) => t.title === "Buy seeds"), "Redo puts it back");
  // Two held writes in one reply: Apply all applies both.
  await page.fill("#input", "add tasks called Rake leaves and Mend fence");
  await page.press("#input", "Enter");
  const replyTwo = page.locator("article.assistant").last();
  await replyTwo.locator("section.proposal button.apply-all").waitFor();
  check((await replyTwo.locator("section.proposal .preview").count()) === 2, "two held writes in one proposal");
  await replyTwo.locator("section.proposal button.apply-all").click();
  await replyTwo.locator(".receipt.status-succeeded").nth(1).waitFor();
  tasks = (await hub("GET", `/api/spaces/${await spaceId()}/tasks`)).json.tasks;
  check(["Rake leaves", "Mend fence"].every((x) => tasks.some((t) => t.title === x)), "Apply all writes both held tasks");
  // A plan of two steps whose second fails (task writes switched off once it is proposed):
  // Retry remaining steps runs only that one.
  const writeAreas = async (areas) => check((await hub("PATCH", "/api/me/settings", { allowedWriteAreas: areas })).status === 200, `the person's write areas: ${areas ? areas.join(", ") : "all"}`);
  const launchProjects = async () => (await hub("GET", `/api/spaces/${await spaceId()}/projects`)).json.projects.filter((x) => x.name === "Launch").length;
  await page.fill("#input", "run the launch plan in order");
  await page.press("#input", "Enter");
  const replyPlan = page.locator("article.assistant").last();
  await replyPlan.locator("section.proposal button.apply-one").waitFor();
  await writeAreas(["projects"]);
  await replyPlan.locator("section.proposal button.apply-one").click();
  await replyPlan.locator(".receipt.status-failed .steps li.status-failed").waitFor();
  check(await replyPlan.locator(".receipt .steps li.status-succeeded").count() === 1 && await launchProjects() === 1,
    "Apply runs the plan's first step (the project is there) and its second fails: the receipt shows both");
  await shot(page, "04b-retry-steps");
  await writeAreas(null);
  let applied = null;
  const onApply = (req) => { if (req.url().endsWith("/api/assistant/apply")) applied = req.postDataJSON(); };
  page.on("request", onApply);
  await replyPlan.locator("button.retry-steps").click();
  await replyPlan.locator(".receipt.status-succeeded").waitFor();
  page.off("request", onApply);
  tasks = (await hub("GET", `/api/spaces/${await spaceId()}/tasks`)).json.tasks;
  const planSteps = await replyPlan.locator(".receipt .steps li.status-succeeded").count(), retryLeft = await replyPlan.locator("button.retry-steps").count();
  check(applied?.retryInterrupted === true && planSteps === 2 && retryLeft === 0,
    `Retry remaining steps applies again (retryInterrupted: ${applied?.retryInterrupted}); the receipt shows both steps succeeded (${planSteps}), and no Retry is left (${retryLeft})`);
  check(await launchProjects() === 1 && tasks.some((t) => t.title === "Write the announcement"), "only the remaining step ran: still one Launch project, and its task is written");
  // A step undone offers Redo, after a reload too (the messages' steps and their undoState).
  await replyPlan.locator(".receipt .steps li").nth(1).locator("button.undo").click();
  await replyPlan.locator(".receipt .steps li").nth(1).locator("button.redo").waitFor();
  await page.reload();
  const planAgain = page.locator("article.assistant").last();
  await planAgain.locator(".receipt .steps li").nth(1).locator("button.redo").waitFor();
  check(await planAgain.locator(".receipt .steps li").nth(0).locator("button.undo").count() === 1 && await planAgain.locator("button.retry-steps").count() === 0,
    "after a reload the plan's receipt lists its steps: the undone one offers Redo, the other Undo");
  await page.selectOption("#write-policy", "immediate");
  await page.click("#save-settings");
  await page.locator("#notice", { hasText: "Settings saved" }).waitFor();
  // A reply with a change and a failed call: its fold is open.
  await page.fill("#input", "sweep the porch and finish the missing task");
  await page.press("#input", "Enter");
  const replyFailed = page.locator("article.assistant").last();
  await replyFailed.locator("details.fold summary", { hasText: "2 steps · 1 change · 1 failed" }).waitFor();
  check(await replyFailed.locator("details.fold").evaluate((d) => d.open) && await replyFailed.locator(".row.phase-failed").isVisible(),
    "a finished reply with a failed call folds behind “2 steps · 1 change · 1 failed”, open");
  await shot(page, "02c-failed-open");
  // The settings' default model and effort (the effort list follows the model), then back.
  const settingsAre = async (want, what) => {
    for (let i = 0; i < 200; i++) {
      const got = (await hub("GET", "/api/me/settings")).json;
      if ((got.model ?? "") === want.model && (got.effort ?? "") === want.effort) return check(true, what);
      await new Promise((r) => setTimeout(r, 50));
    }
    check(false, what);
  };
  await page.selectOption("#model", "fakemodel-deep");
  await page.locator("#effort option[value=high]").waitFor({ state: "attached" });
  await page.selectOption("#effort", "high");
  await page.click("#save-settings");
  await settingsAre({ model: "fakemodel-deep", effort: "high" }, "settings save the default model and its effort");
  await page.selectOption("#model", "");
  await page.click("#save-settings");
  await settingsAre({ model: "", effort: "" }, "settings go back to the catalog's default");

  // --- mentions with the @-menu ----------------------------------------------------------------
  // A failed read of the records says so, and is not kept: the next open reads them again.
  const tasksRead = "**/api/spaces/*/tasks?*";
  await page.route(tasksRead, (r) => r.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ error: { code: "unavailable", message: "the records are resting" } }) }));
  await page.fill("#input", "list my tasks about @Buy");
  await page.locator("#mention-menu .error", { hasText: "the records are resting" }).waitFor();
  check(true, "the @-menu says when its records could not be read");
  await page.unroute(tasksRead);
  await page.fill("#input", "");
  await page.locator("#mention-menu").waitFor({ state: "hidden" });
  await page.fill("#input", "list my tasks about @Buy");
  await page.locator("#mention-menu [role=option]", { hasText: "Buy seeds" }).waitFor();
  await shot(page, "05-mention-menu");
  await page.press("#input", "Enter");
  await page.locator("#chips .chip", { hasText: "@Buy seeds" }).waitFor();
  await page.press("#input", "Enter");
  const mentioned = page.locator("article.user").last();
  await mentioned.locator(".chip", { hasText: "@Buy seeds" }).waitFor();
  await mentioned.locator("a.chip.ref", { hasText: "@Buy seeds" }).click();
  await recordPanel.locator("h2", { hasText: "Buy seeds" }).waitFor();
  await recordPanel.locator("dt", { hasText: "Status" }).waitFor();
  check(true, "a sent message's mention is a link: it opens the record panel of the task");
  await page.keyboard.press("Escape");
  await recordPanel.waitFor({ state: "hidden" });
  await page.locator("article.assistant").last().locator(".row.phase-done", { hasText: "List tasks" }).waitFor({ state: "attached" });
  check(true, "the @-menu picks a record; the message carries it as a chip");
  // A task made after the menu first read its records is offered (the turn's end on the activity stream).
  await page.locator("#send:enabled").waitFor();
  await page.fill("#input", "add a task called Feed the cat");
  await page.press("#input", "Enter");
  await page.locator("article.assistant").last().locator(".row.phase-done", { hasText: "Create tasks" }).waitFor({ state: "attached" });
  await page.locator("#send:enabled").waitFor();
  await page.fill("#input", "@Feed");
  await page.locator("#mention-menu [role=option]", { hasText: "Feed the cat" }).waitFor();
  check(true, "the @-menu reads its records again after a change: a task made since is offered");
  await page.fill("#input", "");

  // --- a second tab; stop mid-stream ------------------------------------------------------------
  const other = await context.newPage();
  await other.goto(origin + "/"); // no link: the browser's session signs the second tab in
  await other.locator("#pill").filter({ hasText: "Idle" }).waitFor();
  check(await other.locator("#conv-list .conv-open").count() > 0, "a second tab opens signed in (the browser's session cookie)");
  const convURL = page.url();
  check(/#\/c\/conv_/.test(convURL), `the open conversation has its own address (${new URL(convURL).hash})`);
  await other.goto(convURL);
  await other.locator("article.user", { hasText: "list my tasks about" }).waitFor();
  check(await other.locator("#chat-title").innerText() === await page.locator("#chat-title").innerText(), "the conversation's address opens the same conversation in the second tab");
  // The same conversation on the phone, at 390 px: the top bar fits, axe finds nothing serious.
  await phone.goto(convURL);
  await phone.locator("article.user", { hasText: "list my tasks about" }).waitFor();
  check(await topBarFits(phone, 390), "at 390 px, with a conversation open, every top bar control is still on screen");
  const axePhone = await axe(phone, "390 px");
  check(axePhone.serious.length === 0, `axe-core at 390 px finds no serious or critical violations (${axePhone.all.length} minor)`);
  await shot(phone, "16b-phone-conversation");
  await phoneContext.close();
  await page.fill("#input", "tell me a long story");
  await page.press("#input", "Enter");
  const reply3 = page.locator("article.assistant").last();
  await reply3.locator(".step", { hasText: /Thinking… [3-9]s/ }).waitFor();
  check(true, "the step in progress counts seconds after three");
  await shot(page, "06-thinking");
  await other.locator("#pill").filter({ hasText: "Working" }).waitFor();
  check(await other.locator("#stop-all").isEnabled(), "a second tab's top bar shows the turn working, Stop all enabled");
  await shot(other, "07-second-tab-working");
  await reply3.locator(".text", { hasText: "Once upon a time Once" }).waitFor();
  await shot(page, "08-streaming");
  await other.locator("article.assistant").last().locator(".text", { hasText: "Once upon a time Once" }).waitFor();
  check(await other.locator("#stop").isVisible(), "the second tab, open on the conversation, streams the reply live too");
  await shot(other, "08b-second-tab-streaming");
  check(await reply3.getAttribute("aria-busy") === "true" && await reply3.locator(".step[role]").count() === 0,
    "the streaming reply is aria-busy, and its ticking step line is no live region of its own");
  await page.click("#stop");
  await reply3.locator(".note", { hasText: "Stopped." }).waitFor();
  check(await focusOn(page) === "input" && await reply3.getAttribute("aria-busy") === null, `after Stop the focus moves to the input (${await focusOn(page)}); the reply is no longer busy`);
  const kept = await reply3.locator(".text").innerText();
  check(kept.length > 20 && kept.length < "Once upon a time ".repeat(200).length, "Stop ends the stream and keeps the text so far");
  await other.locator("#pill").filter({ hasText: "Idle" }).waitFor();
  await other.locator("article.assistant").last().locator(".note", { hasText: "Stopped." }).waitFor();
  check(true, "the second tab's top bar goes back to Idle, its reply says Stopped");

  // --- a reload mid-stream follows the reply again; pause, resume and Stop all from the second tab ---
  const replies = await page.locator("article.assistant").count();
  await page.fill("#input", "tell me a long story");
  await page.press("#input", "Enter");
  await page.locator("article.assistant").nth(replies).locator(".text", { hasText: "Once upon a time" }).waitFor();
  await page.reload();
  await page.locator("article.assistant").last().locator(".text", { hasText: "Once upon a time Once upon a time Once upon a time" }).waitFor();
  check(await page.locator("#stop").isVisible(), "a reload mid-stream follows the running reply again from its stream");
  // The kept stream URL refused (an expired token) after a reload: the tab
  // asks for a stream token of its own, once, and does not loop.
  const runningTurn = await page.locator("article.assistant").last().getAttribute("data-turn");
  const keptUrl = await page.evaluate((t) => sessionStorage.getItem("hub.stream." + t), runningTurn);
  check(!!keptUrl, "the tab keeps the running reply's stream URL");
  let refused = 0, tokens = 0, reads = 0;
  const streams = "**/api/assistant/turns/*/stream?*";
  await page.route(streams, (r) => {
    const tokenOf = (u) => new URL(u, origin).searchParams.get("streamToken");
    if (tokenOf(r.request().url()) === tokenOf(keptUrl)) { refused++; return r.fulfill({ status: 401, contentType: "application/json", body: JSON.stringify({ error: { code: "unauthorized", message: "the stream token expired" } }) }); }
    return r.continue();
  });
  const counting = (req) => {
    if (req.url().endsWith(`/turns/${runningTurn}/stream-token`)) tokens++;
    if (/\/messages$/.test(req.url())) reads++;
  };
  page.on("request", counting);
  await page.reload();
  await page.locator("article.assistant").last().locator(".text", { hasText: "Once upon a time Once upon a time Once upon a time" }).waitFor();
  page.off("request", counting);
  await page.unroute(streams);
  check(refused === 1 && tokens >= 1 && tokens <= 2 && reads <= 6, `a refused stream URL after a reload is dropped and a stream token asked once (refused ${refused}, tokens ${tokens}, message reads ${reads})`);
  check(await page.evaluate((t) => sessionStorage.getItem("hub.stream." + t), runningTurn) !== keptUrl, "the refused URL is no longer kept");
  const fresh = await context.newPage(); // a tab that never saw the turn start: it opens the conversation mid-reply
  await fresh.goto(link);
  await fresh.locator("#conv-list .conv-open", { hasText: "add a task called Water the plants" }).click();
  await fresh.locator("article.assistant").last().locator(".text", { hasText: "Once upon a time Once upon a time" }).waitFor();
  check(await fresh.locator("#stop").isVisible(), "a tab that opens the conversation mid-reply follows the running reply (a stream token of its own)");
  await fresh.close();
  await other.locator("#pill").filter({ hasText: "Working" }).waitFor();
  const live = page.locator("article.assistant").last();
  const liveTurn = await live.getAttribute("data-turn");
  await page.locator("#pause-turn").click();
  await page.locator("#resume-turn").waitFor();
  check(await focusOn(page) === "resume-turn", `after Pause the focus moves to Resume (${await focusOn(page)})`);
  await other.locator("#pill").filter({ hasText: "Paused" }).waitFor();
  check((await hub("GET", `/api/assistant/turns/${liveTurn}`)).json.status === "paused", "Pause next to the reply's Stop pauses its turn; the other tab's top bar says Paused");
  await shot(page, "09a-reply-paused");
  await page.locator("#resume-turn").click();
  await page.locator("#pause-turn").waitFor();
  check(await focusOn(page) === "pause-turn", `after Resume the focus moves back to Pause (${await focusOn(page)})`);
  await other.locator("#pill").filter({ hasText: "Working" }).waitFor();
  check((await hub("GET", `/api/assistant/turns/${liveTurn}`)).json.status === "working", "Resume there sets it working again");
  // A refused Pause says what the api answered; the pill stays live.
  await other.route("**/api/agent/pause", (r) => r.fulfill({ status: 409, contentType: "application/json", body: JSON.stringify({ error: { code: "conflict", message: "pausing is refused right now" } }) }));
  await other.click("#pause-all");
  await other.locator("#topbar-error", { hasText: "pausing is refused right now" }).waitFor();
  check(await other.locator("#pill").innerText() !== "Unavailable" && (await other.locator("#pill").innerText()).startsWith("Working"),
    "a refused Pause in the top bar shows the api's message, and the pill still says Working");
  await other.unroute("**/api/agent/pause");
  const pillBefore = await other.locator("#pill").elementHandle();
  await other.click("#pause-all");
  await other.locator("#pill").filter({ hasText: "Paused" }).waitFor();
  check(await other.locator("#topbar-error", { hasText: /./ }).count() === 0, "the message goes once Pause succeeds");
  check(await focusOn(other) === "resume-all" && await pillBefore.evaluate((e) => e.isConnected),
    `after the top bar's Pause the focus moves to its Resume (${await focusOn(other)}), and the pill is the same element, its text changed`);
  await page.locator("#pill").filter({ hasText: "Paused" }).waitFor();
  await page.locator("#resume-turn").waitFor();
  check(true, "Pause in the second tab pauses the turn; both top bars say Paused, the reply offers Resume");
  await shot(other, "09-paused");
  await other.click("#resume-all");
  await other.locator("#pill").filter({ hasText: "Working" }).waitFor();
  await page.locator("#pause-turn").waitFor();
  check(true, "Resume sets it working again");
  await other.click("#stop-all");
  await page.locator("article.assistant").last().locator(".note", { hasText: "Stopped." }).waitFor();
  check(true, "Stop all in the second tab stops the first tab's turn");

  // --- Stopping: a stop waits for the tool call that runs (a web page that answers when told) ---
  const slowReads = async () => Number(await (await fetch(webhook + "/slow-reads")).text());
  await page.locator("#send:enabled").waitFor();
  await page.fill("#input", "read the slow page");
  await page.press("#input", "Enter");
  const replySlow = page.locator("article.assistant").last();
  await replySlow.locator(".row.phase-started", { hasText: "Read a web page" }).waitFor();
  for (let i = 0; i < 400 && await slowReads() === 0; i++) await new Promise((r) => setTimeout(r, 50));
  check(await slowReads() === 1, "the reply's call reads the slow page, which does not answer yet");
  await page.click("#stop");
  await page.locator("#pill").filter({ hasText: /^Stopping/ }).waitFor();
  await other.locator("#pill").filter({ hasText: /^Stopping/ }).waitFor();
  check(await replySlow.locator(".note", { hasText: "Stopped." }).count() === 0, "after Stop, while the call that runs finishes, both tabs' pills say Stopping");
  await shot(page, "09b-stopping");
  await fetch(webhook + "/release");
  await replySlow.locator(".note", { hasText: "Stopped." }).waitFor();
  await page.locator("#pill").filter({ hasText: /^Idle$/ }).waitFor();
  check(true, "once that call has finished the turn stops: the reply says Stopped., the pill Idle");

  // --- an error turn and its Retry ----------------------------------------------------------------
  await page.fill("#input", "fail once");
  await page.press("#input", "Enter");
  const reply5 = page.locator("article.assistant").last();
  await reply5.locator(".turn-error button.retry-turn").waitFor();
  await shot(page, "10-error-retry");
  await reply5.locator(".turn-error button.retry-turn").click();
  await page.locator("article.assistant").last().locator(".text", { hasText: "I am fakemodel" }).waitFor();
  check(await page.locator("button.retry-turn").count() === 0, "Retry on an error turn answers, and the retried turn offers no second Retry");

  // --- reload: chips and receipts are drawn again ---------------------------------------------------
  await page.reload();
  await page.locator("article.user .chip", { hasText: "@Buy seeds" }).waitFor();
  await page.locator(".receipt.status-succeeded", { hasText: "Buy seeds" }).waitFor();
  await page.locator("section.proposal .badge", { hasText: "Applied" }).first().waitFor();
  check(true, "after a reload the chips and receipts are still there");
  await page.locator("article.assistant").first().locator(".row.phase-done button.redo").waitFor({ state: "attached" });
  await page.locator(".receipt.status-succeeded", { hasText: "Buy seeds" }).locator("button.undo").waitFor();
  check(true, "after a reload the undone row offers Redo, the redone receipt Undo (the messages' undoState)");
  await shot(page, "11-reloaded");

  // --- the Needs me list ------------------------------------------------------------------------
  await page.selectOption("#write-policy", "needs-me");
  await page.click("#save-settings");
  await page.locator("#notice", { hasText: "Settings saved" }).waitFor();
  await page.fill("#input", "add a task called Plant tulips");
  await page.press("#input", "Enter");
  const need = page.locator("#needs-list li", { hasText: "Plant tulips" });
  await need.waitFor();
  await shot(page, "12-needs-me");
  await need.locator("button.needs-apply").click();
  await need.waitFor({ state: "detached" });
  tasks = (await hub("GET", `/api/spaces/${await spaceId()}/tasks`)).json.tasks;
  check(tasks.some((t) => t.title === "Plant tulips"), "a write held for Needs me is applied from the list");
  await page.selectOption("#write-policy", "immediate");
  await page.click("#save-settings");
  await page.locator("#notice", { hasText: "Settings saved" }).waitFor();

  // --- an Apply whose outcome is unknown, and Send again --------------------------------------------
  await page.fill("#input", "tell the team we shipped");
  await page.press("#input", "Enter");
  const reply6 = page.locator("article.assistant").last();
  await reply6.locator("section.proposal .preview").waitFor();
  await reply6.locator("button.apply-one").click();
  await reply6.locator(".receipt.status-unknown button.resend-unknown").waitFor();
  const posts = async () => Number(await (await fetch(webhook + "/posts")).text());
  check(await posts() === 1, "Apply sends the post once; with no answer the receipt says unknown and offers Send again");
  await shot(page, "12b-unknown");
  await reply6.locator("button.resend-unknown").click();
  await reply6.locator(".receipt.status-succeeded").waitFor();
  check(await posts() === 2, "Send again sends it a second time (resendUnknown), and it succeeds");

  // --- the top bar when the activity stream cannot be had: Unavailable, then Retry -------------
  const third = await context.newPage();
  await third.route("**/api/agent/stream-token", (r) => r.abort());
  // The Needs me list's first read fails once (503): it says so, with Retry.
  await third.route("**/api/assistant/needs-me", (r) => r.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ error: { code: "unavailable", message: "the list is resting" } }) }), { times: 1 });
  await third.goto(link);
  await third.locator("#pill").filter({ hasText: "Unavailable" }).waitFor();
  await third.locator("#needs-list .needs-error", { hasText: "the list is resting" }).waitFor();
  check(true, "a failed read of the Needs me list says so, with Retry");
  await shot(third, "13-unavailable");
  await third.click("#needs-retry");
  await third.locator("#needs-list .empty", { hasText: "Nothing waits for you." }).waitFor();
  check(await third.locator("#needs-list .needs-error").count() === 0, "Retry reads the Needs me list again: the message goes");
  await third.unroute("**/api/agent/stream-token");
  await third.click("#pill-retry");
  await third.locator("#pill").filter({ hasText: "Idle" }).waitFor();
  check(true, "the pill says Unavailable with a Retry that reconnects");
  await third.close();
  // The activity stream refused (a 401 once, as after an expired token): the bar connects again by itself, with a new token.
  const fourth = await context.newPage();
  let agentTokens = 0;
  fourth.on("request", (req) => { if (req.url().endsWith("/api/agent/stream-token")) agentTokens++; });
  await fourth.route("**/api/agent/stream?*", (r) => r.fulfill({ status: 401, contentType: "application/json", body: JSON.stringify({ error: { code: "unauthorized", message: "the stream token expired" } }) }), { times: 1 });
  await fourth.goto(link);
  const fourthIdle = await shows(fourth.locator("#pill").filter({ hasText: "Idle" }));
  check(fourthIdle && agentTokens === 2, `a refused activity stream is connected again by itself, with a new token (${agentTokens} asked)`);
  await fourth.close();

  // --- accessibility: axe-core, and the keyboard -------------------------------------------------
  await page.locator("details.fold").first().evaluate((d) => { d.open = true; });
  const axeAll = await axe(page, "");
  check(axeAll.serious.length === 0, `axe-core finds no serious or critical violations (${axeAll.all.length} minor)`);
  figures.axeViolations = axeAll.all.map((v) => `${v.impact}:${v.id}`);

  await page.focus("body");
  const reached = new Set();
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press("Tab");
    reached.add(await page.evaluate(() => { const e = document.activeElement; return e ? (e.id || e.className || e.tagName) : ""; }));
  }
  for (const want of ["space", "signout", "new-conv", "conv-open", "conv-delete", "turn-model", "input", "attach", "space-files-toggle", "send", "write-policy", "save-settings"]) {
    check(reached.has(want), `Tab reaches ${want}`);
  }
  // The @-menu by keyboard alone.
  await page.focus("#input");
  await page.keyboard.type("@Buy");
  await page.locator("#mention-menu [role=option]").first().waitFor();
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  await page.locator("#chips .chip").first().waitFor();
  check(true, "the @-menu works by keyboard");
  await page.fill("#input", "");

  // --- an attached file ----------------------------------------------------------------------
  // The native input is hidden but for the keyboard; Attach (its label) opens the file chooser.
  const box = await page.locator("#attach").boundingBox();
  check(box && box.width <= 1 && box.height <= 1 && await page.locator("label.attach-label").isVisible(), "the file input is drawn only as its label, Attach");
  // A listener for the whole section keeps Playwright's file-chooser interception on (turned on with
  // the first listener, asynchronously: the evaluate after it is answered once it is on), so no key
  // press or click can come before it.
  const keepChoosers = () => {};
  page.on("filechooser", keepChoosers);
  await page.evaluate(() => 0);
  const [chooser] = await Promise.all([page.waitForEvent("filechooser"), page.click("label.attach-label")]);
  check(chooser.isMultiple(), "Attach opens the file chooser (several files at once)");
  await chooser.setFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("Water the plants on Monday.\n") });
  await page.locator("#chips .chip", { hasText: "@notes.txt" }).waitFor();
  await page.locator("#chips .pending-chip", { hasText: "@notes.txt" }).locator(".chip-remove").click();
  await page.locator("#chips .chip", { hasText: "@notes.txt" }).waitFor({ state: "detached" });
  await page.focus("#attach");
  const [byKey] = await Promise.all([page.waitForEvent("filechooser"), page.keyboard.press("Space")]);
  await byKey.setFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("Water the plants on Monday.\n") });
  await page.locator("#chips .chip", { hasText: "@notes.txt" }).waitFor();
  page.off("filechooser", keepChoosers);
  check(await page.locator("#chips .chip", { hasText: "@notes.txt" }).count() === 1, "the hidden input, reached by Tab, opens the chooser with Space");
  await page.fill("#input", "what is in the file");
  await page.press("#input", "Enter");
  await page.locator("article.user").last().locator(".chip", { hasText: "@notes.txt" }).waitFor();
  await page.locator("article.assistant").last().locator(".text", { hasText: "I am fakemodel" }).waitFor();
  await page.reload();
  await page.locator("article.user").last().locator(".chip", { hasText: "@notes.txt" }).waitFor();
  check(true, "a file is attached to a message and drawn as a chip after a reload");
  await page.locator("article.user").last().locator("a.chip.ref", { hasText: "@notes.txt" }).click();
  const download = recordPanel.locator("a.record-download", { hasText: "Download notes.txt" });
  await download.waitFor();
  const got = await page.evaluate(async (href) => { const r = await fetch(href); return [r.status, await r.text()]; }, await download.getAttribute("href"));
  check(got[0] === 200 && got[1] === "Water the plants on Monday.\n", `a sent file's chip is a link: the record panel of the file, whose Download the session cookie signs in (${got[0]})`);
  await page.keyboard.press("Escape");
  await recordPanel.waitFor({ state: "hidden" });
  await page.click("#space-files summary");
  await page.locator("#space-file-list button.space-file", { hasText: "notes.txt" }).first().click();
  await page.locator("#chips .chip", { hasText: "@notes.txt" }).waitFor();
  await shot(page, "14-space-file");
  await page.fill("#input", "and what does the file say again");
  await page.press("#input", "Enter");
  await page.locator("article.user").last().locator(".chip", { hasText: "@notes.txt" }).waitFor();
  await page.locator("article.assistant").last().locator(".text", { hasText: "I am fakemodel" }).waitFor();
  const convId = await page.evaluate(() => decodeURIComponent(location.hash.replace(/^#\/c\//, "")));
  const lastUser = (await hub("GET", `/api/assistant/conversations/${convId}/messages`)).json.messages.filter((m) => m.role === "user").at(-1);
  check(lastUser.mentions.some((m) => m.kind === "file" && m.label === "notes.txt"), "a file already in the space is picked for a message and sent with it");

  // The file is searchable once indexed; a reply citing its passage opens the passage in the record panel.
  for (let i = 0; ; i++) {
    const files = (await hub("GET", `/api/spaces/${await spaceId()}/files`)).json.files;
    if (files.some((f) => f.name === "notes.txt" && f.indexStatus === "indexed")) break;
    if (i === 200) throw new Error("notes.txt was not indexed: " + JSON.stringify(files));
    await new Promise((r) => setTimeout(r, 50));
  }
  await page.fill("#input", "search the files for watering plants");
  await page.locator("#send:enabled").waitFor();
  await page.press("#input", "Enter");
  const cited = page.locator("article.assistant").last().locator("a.ref[data-passage]", { hasText: "notes.txt" });
  await cited.waitFor();
  await cited.click();
  await recordPanel.locator("figure.record-passage blockquote", { hasText: "Water the plants on Monday." }).waitFor();
  check(true, "a reply's citation of a file's passage is a link: the record panel shows the passage cited, under the file");
  const axeCited = await axe(page, "record panel with a cited passage", "#record");
  check(axeCited.serious.length === 0, `axe-core finds no serious or critical violations in the cited passage (${axeCited.all.length} minor)`);
  await page.keyboard.press("Escape");
  await recordPanel.waitFor({ state: "hidden" });

  // --- delete a conversation ------------------------------------------------------------------
  await page.click("#new-conv");
  await page.fill("#input", "hello");
  await page.press("#input", "Enter");
  await page.locator("article.assistant .text", { hasText: "I am fakemodel" }).waitFor();
  const before = await page.locator("#conv-list li").count();
  await page.locator("#conv-list li.current .conv-delete").click();
  await page.locator("#notice", { hasText: "Deleted" }).waitFor();
  await page.waitForFunction((n) => document.querySelectorAll("#conv-list li").length === n - 1, before);
  check(true, "a conversation is deleted from the list");

  // --- a conversation switch while a message is being sent --------------------------------------
  // A's message is held on its way; the person opens B meanwhile and types there. A's reply stays A's.
  await page.click("#new-conv");
  await page.fill("#input", "hello from B");
  await page.press("#input", "Enter");
  await page.locator("article.assistant .text", { hasText: "I am fakemodel" }).waitFor();
  await page.locator("#send:enabled").waitFor();
  const convA = page.locator("#conv-list .conv-open", { hasText: "add a task called Water the plants" });
  await convA.focus();
  await page.keyboard.press("Enter");
  await page.locator("article.user", { hasText: "list my tasks about" }).waitFor();
  check(await focusOn(page) === "chat-title", `a conversation opened by keyboard moves the focus to its heading (${await focusOn(page)})`);
  let releaseTurn;
  const turnHeld = new Promise((r) => { releaseTurn = r; });
  const turnPosts = "**/api/assistant/conversations/*/turns";
  await page.route(turnPosts, async (r) => { await turnHeld; await r.continue(); }, { times: 1 });
  const postedA = page.waitForResponse((r) => r.url().endsWith("/turns") && r.request().method() === "POST", { timeout: 3 * timeout });
  await page.fill("#input", "hello again in A");
  await page.press("#input", "Enter");
  await page.locator("#conv-list .conv-open", { hasText: "hello from B" }).click();
  await page.locator("#chat-title", { hasText: "hello from B" }).waitFor();
  await page.locator("article.user", { hasText: "hello from B" }).waitFor();
  await page.fill("#input", "and again in B");
  await page.press("#input", "Enter");
  check(await shows(page.locator("#notice", { hasText: "still being sent" })) && await page.inputValue("#input") === "and again in B", "Send while the last message is on its way says why, and keeps the text");
  releaseTurn();
  await postedA;
  await page.unroute(turnPosts);
  await page.locator("#send:enabled").waitFor();
  check(await page.locator("article", { hasText: "hello again in A" }).count() === 0 && await page.inputValue("#input") === "and again in B" && await page.locator("#stop").isHidden(),
    "A's message, answered after the person opened B, shows nothing in B and leaves B's input and controls alone");
  await page.press("#input", "Enter");
  const sentInB = await shows(page.locator("article.user", { hasText: "and again in B" }));
  if (sentInB) {
    await page.locator("article.assistant").last().locator(".text", { hasText: "I am fakemodel" }).waitFor();
    await page.locator("#send:enabled").waitFor();
  }
  check(sentInB && await page.locator("article.user").count() === 2, "B sends its own message at once");
  await convA.click();
  await page.locator("article.user", { hasText: "hello again in A" }).waitFor();
  await page.locator("article.assistant").last().locator(".text", { hasText: "I am fakemodel" }).waitFor();
  check(true, "back in A, its reply is there");

  // --- a second space: switching drops the composer's mentions and files; Needs me opens an item in its own space ---
  // The first person is an editor in the other person's space too (console_test.go: hub token create).
  const otherSpace = (await hub("GET", "/api/spaces")).json.spaces.find((x) => x.name === "Other space");
  check(!!otherSpace, "the first person is in a second space, the other person's");
  await page.locator(`#space option[value="${otherSpace.id}"]`).waitFor({ state: "attached" });
  await page.fill("#input", "@Buy");
  await page.locator("#mention-menu [role=option]", { hasText: "Buy seeds" }).click();
  await page.locator("#chips .chip", { hasText: "@Buy seeds" }).waitFor();
  await page.click("#space-files summary");
  await page.locator("#space-file-list button.space-file").first().waitFor();
  await page.selectOption("#space", otherSpace.id);
  await page.locator("#messages p.empty").waitFor();
  check(await page.locator("#chips .pending-chip").count() === 0 && !(await page.locator("#space-files").evaluate((d) => d.open)),
    "switching space drops the mentions picked in the other space and closes its file list");
  await page.fill("#input", "");
  const demo = await spaceId();
  await page.selectOption("#space", demo);
  await page.locator("#conv-list .conv-open", { hasText: "hello from B" }).waitFor();
  check((await hub("PATCH", "/api/me/settings", { writePolicy: "needs-me" })).status === 200, "writes go to Needs me");
  const convTwo = (await hub("POST", "/api/assistant/conversations", { spaceId: otherSpace.id, title: "Roses elsewhere" })).json;
  check((await hub("POST", `/api/assistant/conversations/${convTwo.id}/turns`, { text: "add a task called Plant roses" })).status === 202, "a turn in the other space holds a write for Needs me");
  const needRoses = page.locator("#needs-list li", { hasText: "Plant roses" });
  await needRoses.waitFor();
  await needRoses.locator("button.needs-open").click();
  check(await shows(page.locator("#chat-title", { hasText: "Roses elsewhere" })) && await page.inputValue("#space") === otherSpace.id && await page.locator("#conv-list .conv-open", { hasText: "Roses elsewhere" }).count() === 1,
    "Needs me's Open of an item in another space switches to that space, then opens its conversation");
  check((await hub("PATCH", "/api/me/settings", { writePolicy: "immediate" })).status === 200, "writes at once again");
  // A conversation's address opens it from a tab on another space (GET /api/assistant/conversations/:id names its space).
  await page.selectOption("#space", demo);
  await page.locator("#conv-list .conv-open", { hasText: "hello from B" }).waitFor();
  await page.goto(origin + "/#/c/" + encodeURIComponent(convTwo.id));
  check(await shows(page.locator("#chat-title", { hasText: "Roses elsewhere" })) && await page.inputValue("#space") === otherSpace.id,
    "a conversation's address in another space switches to that space and opens it");
  check((await hub("DELETE", `/api/assistant/conversations/${convTwo.id}`)).status === 204, "the conversation in the other space is deleted (the other person signs in below)");
  await page.selectOption("#space", demo);
  await page.locator("#conv-list .conv-open", { hasText: "hello from B" }).waitFor();

  // --- the Agents screen: make an agent, send it work, schedule it, pause and resume the schedule ---
  await page.focus("#open-agents");
  await page.keyboard.press("Enter");
  await page.locator("#agents-title", { hasText: /^Agents$/ }).waitFor();
  await page.locator("#agent-list .empty", { hasText: "No agents yet" }).waitFor();
  check(new URL(page.url()).hash === "#/agents" && await page.locator("#chat").isHidden() && await focusOn(page) === "agents-title",
    "Agents opens by keyboard from the side: the screen takes the chat's place at its own address (#/agents), the focus on its heading");
  await page.fill("#agent-name", "Garden keeper");
  await page.fill("#agent-persona", "You keep the garden: short briefs, no fuss.");
  check(await page.locator("#agent-spaces input:checked").count() === 1 && await page.locator("#agent-spaces input:checked").getAttribute("value") === demo
    && await page.locator("#agent-spaces input").count() === 2 && await page.isChecked("#agent-enabled"),
    "the new agent's form offers the person's two spaces, the open one ticked, and On");
  // Refused by the api (no space): the notice line says why, naming the field; the field is marked.
  await page.uncheck(`#agent-spaces input[value="${demo}"]`);
  await page.click("#create-agent");
  await page.locator("#notice", { hasText: /^Spaces: / }).waitFor();
  check(await page.locator("#agent-spaces").getAttribute("aria-invalid") === "true" && (await hub("GET", "/api/agents")).json.agents.length === 0,
    `an api refusal is said in the notice line with the field its path names (“${await page.locator("#notice").innerText()}”), and nothing is made`);
  await page.check(`#agent-spaces input[value="${demo}"]`);
  await page.click("#create-agent");
  await page.locator("#agents-title", { hasText: "Garden keeper" }).waitFor();
  const agent = (await hub("GET", "/api/agents")).json.agents.find((a) => a.name === "Garden keeper");
  check(!!agent && agent.enabled && agent.persona === "You keep the garden: short briefs, no fuss." && agent.spaces.join() === demo
    && new URL(page.url()).hash === `#/agents/${agent.id}` && await focusOn(page) === "agents-title",
    "Create agent makes it (charter, space, on) and opens its page at its own address, the focus on its name");
  await page.locator("#agent-info .charter", { hasText: "short briefs" }).waitFor();
  await page.locator("#schedule-list .empty", { hasText: "No schedules" }).waitFor();
  await page.click("#agent-switch");
  await page.locator("#agent-state .badge", { hasText: "Off" }).waitFor();
  check((await hub("GET", `/api/agents/${agent.id}`)).json.enabled === false, "Switch off switches the agent off (PATCH with its version)");
  await page.click("#agent-switch");
  await page.locator("#agent-state .badge", { hasText: "On" }).waitFor();
  check((await hub("GET", `/api/agents/${agent.id}`)).json.enabled === true && await focusOn(page) === "agent-switch", "Switch on switches it on again; the focus stays on the button");
  await shot(page, "17-agent");
  // Run: the work goes to the agent, and its reply streams in its own conversation.
  await page.fill("#run-text", "draft the garden brief");
  await page.click("#run-agent");
  const agentReply = page.locator("article.assistant").last().locator(".text", { hasText: "Garden brief: the plants are watered and the leaves are raked." });
  await agentReply.waitFor();
  const agentConv = decodeURIComponent(new URL(page.url()).hash.replace(/^#\/c\//, ""));
  check(await page.locator("#agents").isHidden() && (await hub("GET", `/api/assistant/conversations/${agentConv}`)).json.agentId === agent.id
    && await page.locator("article.user", { hasText: "draft the garden brief" }).count() === 1,
    "Run sends the agent work and opens the conversation it answers in: its reply is there");
  // The back button goes back to the agent's page.
  await page.goBack();
  await page.locator("#agents-title", { hasText: "Garden keeper" }).waitFor();
  check(await page.locator("#chat").isHidden(), "the back button goes back to the agent's page");
  // A schedule: a cron expression the api refuses first, then one it takes; its next runs shown in local time.
  const zone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  check(await page.inputValue("#schedule-tz") === zone, `a new schedule's time zone is the browser's (${zone})`);
  await page.fill("#schedule-text", "draft the garden brief");
  await page.fill("#schedule-cron", "weekdays at nine");
  await page.click("#add-schedule");
  await page.locator("#notice", { hasText: /^Cron expression: / }).waitFor();
  check(await page.locator("#schedule-cron").getAttribute("aria-invalid") === "true" && await focusOn(page) === "schedule-cron",
    `a refused cron expression is said with its field (“${await page.locator("#notice").innerText()}”), which has the focus`);
  await page.fill("#schedule-cron", "0 9 * * 1-5");
  await page.click("#add-schedule");
  const schedule = page.locator("#schedule-list li.schedule", { hasText: "draft the garden brief" });
  await schedule.locator("ol.next-runs li time").first().waitFor();
  const nextRuns = await schedule.locator("ol.next-runs time").evaluateAll((ts) => ts.map((t) => [t.getAttribute("datetime"), t.textContent]));
  const localNine = nextRuns.every(([iso]) => { const d = new Date(iso); return d > new Date() && d.getHours() === 9 && d.getMinutes() === 0 && d.getDay() >= 1 && d.getDay() <= 5; });
  check(nextRuns.length === 5 && localNine && nextRuns.every(([, text]) => /09:00/.test(text)) && await schedule.locator(".schedule-spec", { hasText: `0 9 * * 1-5 (${zone})` }).count() === 1,
    `the schedule shows its cron, time zone and next five runs as local date-times in <time datetime> (${nextRuns[0]?.[1]} …)`);
  await page.evaluate(() => document.getElementById("agent-schedules")?.scrollIntoView());
  await shot(page, "17a-schedule");
  const sched = (await hub("GET", `/api/agents/${agent.id}/schedules`)).json.schedules[0];
  check(sched.spec.cron === "0 9 * * 1-5" && sched.timeZone === zone && sched.writes === "apply" && !sched.paused, "the schedule is made: cron, time zone, writes that wait for Apply");
  // A one-off run: a date and time in another time zone, sent as the instant it names there, shown in local time.
  const day = new Date(Date.now() + 10 * 86400_000);
  const ymd = `${day.getUTCFullYear()}-${String(day.getUTCMonth() + 1).padStart(2, "0")}-${String(day.getUTCDate()).padStart(2, "0")}`;
  await page.fill("#schedule-text", "water the seedlings once");
  await page.selectOption("#schedule-kind", "at");
  check(await page.locator("#schedule-cron").isHidden() && await page.locator("#schedule-at").isVisible(), "Once offers a date and time in place of the cron expression");
  await page.fill("#schedule-at", `${ymd}T08:30`);
  await page.fill("#schedule-tz", "Asia/Tokyo");
  await page.click("#add-schedule");
  const once = page.locator("#schedule-list li.schedule", { hasText: "water the seedlings once" });
  await once.locator("ol.next-runs time").first().waitFor();
  const onceRun = (await hub("GET", `/api/agents/${agent.id}/schedules`)).json.schedules.find((x) => x.text === "water the seedlings once");
  const want = new Date(`${ymd}T08:30:00+09:00`).toISOString();
  check(onceRun && new Date(onceRun.spec.at).toISOString() === want && onceRun.timeZone === "Asia/Tokyo"
    && new Date(await once.locator("ol.next-runs time").first().getAttribute("datetime")).toISOString() === want,
    `a one-off run at 08:30 in Asia/Tokyo is sent as that instant (${onceRun?.spec.at}) and its next run shown at it`);
  await once.locator("button.schedule-delete").click();
  await once.waitFor({ state: "detached" });
  await page.selectOption("#schedule-kind", "cron");
  const axeAgent = await axe(page, "agent page");
  check(axeAgent.serious.length === 0, `axe-core finds no serious or critical violations on the agent's page (${axeAgent.all.length} minor)`);
  // Pause with a note: shown paused, the note visible, no next runs; then Resume.
  await schedule.locator("input.schedule-note").fill("Away for the holidays");
  await schedule.locator("button.schedule-pause").click();
  await schedule.locator(".schedule-state .badge", { hasText: "Paused" }).waitFor();
  const pausedNow = (await hub("GET", `/api/agents/${agent.id}/schedules/${sched.id}`)).json;
  check(pausedNow.paused && pausedNow.note === "Away for the holidays" && await schedule.locator(".schedule-note-text", { hasText: "Away for the holidays" }).isVisible()
    && await schedule.locator("ol.next-runs").count() === 0 && await focusOn(page) === `schedule-pause-${sched.id}`,
    "Pause with a note pauses the schedule: shown paused with its note and no next runs; the focus on its button, now Resume");
  await shot(page, "17b-schedule-paused");
  await schedule.locator("button.schedule-resume").click();
  await schedule.locator(".schedule-state .badge", { hasText: "Active" }).waitFor();
  await schedule.locator("ol.next-runs li").first().waitFor();
  check((await hub("GET", `/api/agents/${agent.id}/schedules/${sched.id}`)).json.paused === false, "Resume sets it going again, its next runs back");
  // Run now: a run, its status, and a link to the schedule's conversation.
  await schedule.locator("button.schedule-trigger").click();
  const run = schedule.locator("ol.recent-runs li.run", { hasText: "Done" });
  await run.waitFor({ timeout: 3 * timeout });
  await page.evaluate(() => document.getElementById("agent-schedules")?.scrollIntoView());
  await shot(page, "17c-recent-run");
  await run.locator("a.run-open").click();
  await page.locator("article.assistant").last().locator(".text", { hasText: "Garden brief:" }).waitFor();
  check(new URL(page.url()).hash === `#/c/${encodeURIComponent(sched.conversationId)}` && await page.locator("#agents").isHidden(),
    "Run now fires the schedule: its recent run says Done, and its link opens the schedule's conversation with the reply");
  // At 390 px: the agent's page fits and axe finds nothing serious.
  const narrow = await browser.newContext({ viewport: { width: 390, height: 844 } });
  narrow.setDefaultTimeout(timeout);
  const small = await narrow.newPage();
  small.on("pageerror", (e) => pageErrors.push(String(e)));
  await small.goto(link);
  await small.locator("#pill").filter({ hasText: "Idle" }).waitFor();
  await small.evaluate((id) => { location.hash = "#/agents/" + id; }, agent.id);
  await small.locator("#schedule-list li.schedule ol.next-runs li").first().waitFor();
  check(await small.evaluate(() => document.documentElement.scrollWidth) <= 390 && await topBarFits(small, 390), "at 390 px the agent's page is no wider than the screen");
  const axeSmall = await axe(small, "agent page at 390 px");
  check(axeSmall.serious.length === 0, `axe-core at 390 px finds no serious or critical violations on the agent's page (${axeSmall.all.length} minor)`);
  await shot(small, "17d-phone-agent");
  await narrow.close();
  // Delete the schedule, then the agent.
  await page.goBack();
  await page.locator("#agents-title", { hasText: "Garden keeper" }).waitFor();
  await page.locator("#schedule-list button.schedule-delete").click();
  await page.locator("#schedule-list .empty", { hasText: "No schedules" }).waitFor();
  await page.click("#agent-delete");
  await page.locator("#agent-list .empty", { hasText: "No agents yet" }).waitFor();
  check((await hub("GET", "/api/agents")).json.agents.length === 0 && new URL(page.url()).hash === "#/agents", "Delete takes the schedule away, then the agent (back on the list)");
  await page.click("#agents-back");
  await page.locator("#chat-title").waitFor();
  check(await page.locator("#agents").isHidden(), "Back to the chat shows the chat again");

  // --- Sign out, then sign in as another person in the same tab ---------------------------------
  // With a conversation open, its records read by the @-menu.
  await page.locator("#conv-list .conv-open", { hasText: "add a task called Water the plants" }).click();
  await page.locator("article.user", { hasText: "list my tasks about" }).waitFor();
  await page.fill("#input", "@Buy");
  await page.locator("#mention-menu [role=option]", { hasText: "Buy seeds" }).waitFor();
  await page.fill("#input", "");
  await page.click("#signout");
  await page.locator("#token-input").waitFor();
  check(!(await context.cookies()).some((c) => c.name === "hub_session") && new URL(page.url()).hash === "", "Sign out ends the session: the cookie is gone, and the address names no conversation");
  await other.locator("#token-input").waitFor();
  await other.locator(".signin .error", { hasText: "You signed out in another tab." }).waitFor();
  check(true, "the other tab follows the sign-out: its sign-in form says so");
  check(await page.locator("#token-help code").count() === 3 && !(await page.locator("#token-help").innerText()).includes("`"),
    "the sign-in hint shows its commands as code, with no raw backticks");
  const axeSignIn = await axe(page, "sign-in");
  check(axeSignIn.serious.length === 0, `axe-core finds no serious or critical violations on the sign-in page (${axeSignIn.all.length} minor)`);
  await shot(page, "15-sign-in");
  await page.fill("#token-input", "hub_notatoken");
  await page.press("#token-input", "Enter");
  await page.locator(".signin .error", { hasText: "That token was not accepted." }).waitFor();
  check(true, "the sign-in form says when a pasted token is refused");
  await page.fill("#token-input", otherToken);
  let signInTokens = 0;
  const countAgent = (req) => { if (req.url().endsWith("/api/agent/stream-token")) signInTokens++; };
  page.on("request", countAgent);
  await page.dblclick(".signin button[type=submit]");
  await page.locator("#pill").filter({ hasText: "Idle" }).waitFor();
  page.off("request", countAgent);
  check(signInTokens === 1, `a double click on Sign in signs in once: one activity stream (${signInTokens} asked)`);
  await page.locator("#space option", { hasText: "Other space" }).waitFor({ state: "attached" });
  await page.locator("#messages p.empty").waitFor();
  check(await page.locator("#conv-list li").count() === 0 && await page.locator("#messages article").count() === 0,
    "signed in by pasting another person's token: none of the first person's conversations or messages");
  await page.fill("#input", "@Buy");
  await page.locator("#mention-menu li.none").waitFor();
  check(await page.locator("#mention-menu", { hasText: "Buy seeds" }).count() === 0, "the @-menu offers none of the first person's records");
  await page.fill("#input", "hello");
  await page.press("#input", "Enter");
  await page.locator("article.assistant .text", { hasText: "I am fakemodel" }).waitFor();
  await page.locator("#conv-list li").first().waitFor();
  check(await page.locator("#conv-list li").count() === 1, "Send works for the second person, in a conversation of their own");

  check(pageErrors.length === 0, `no script errors on the page${pageErrors.length ? ": " + pageErrors.join("; ") : ""}`);

  // --- the bundle -----------------------------------------------------------------------------
  const staticDir = path.join(here, "../../static");
  const files = ["index.html", "app.css", ...readdirSync(path.join(staticDir, "js")).map((f) => `js/${f}`)];
  let raw = 0, gz = 0;
  for (const f of files) {
    const b = readFileSync(path.join(staticDir, f));
    raw += b.length;
    gz += gzipSync(b, { level: 9 }).length;
  }
  Object.assign(figures, { bundleBytes: raw, bundleGzipBytes: gz, bundleFiles: files.length });
  console.log("figures " + JSON.stringify(figures));
  if (process.env.HUB_METRICS) writeFileSync(process.env.HUB_METRICS, JSON.stringify(figures, null, 2));
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  await browser.close();
}
process.exit(failed || softFailed() ? 1 : 0);

/** topBarFits says whether every control of the top bar is inside the viewport's width, and the page no wider than it. */
async function topBarFits(p, width) {
  for (const id of ["space", "pill", "pause-all", "resume-all", "stop-all", "signout"]) {
    const box = await p.locator("#" + id).boundingBox();
    if (!box || box.x < 0 || box.x + box.width > width || box.y < 0) { console.log(`  #${id} is off screen at ${width} px: ${JSON.stringify(box)}`); return false; }
  }
  const wide = await p.evaluate(() => document.documentElement.scrollWidth);
  if (wide > width) { console.log(`  the page is ${wide} px wide at ${width} px`); return false; }
  return true;
}

async function spaceId() {
  return (await hub("GET", "/api/spaces")).json.spaces[0].id;
}
