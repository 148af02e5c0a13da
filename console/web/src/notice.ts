// The notice: one line at the foot of the page that says what an action did
// or why it failed, gone after six seconds.

let noticeTimer = 0;

/** notice shows text in the notice line ("": hides it). */
export function notice(text: string): void {
  clearTimeout(noticeTimer);
  // Signed out meanwhile (a late answer, or the timer that hides it): there is no notice to show.
  const n = document.getElementById("notice");
  if (!n) return;
  n.textContent = text;
  n.classList.toggle("shown", !!text);
  if (text) noticeTimer = setTimeout(() => notice(""), 6000);
}

/** errorText is what a failure says to the person (an ApiError's message is the api's). */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
