let noticeTimer = 0;
export function notice(text) {
    clearTimeout(noticeTimer);
    const n = document.getElementById("notice");
    if (!n)
        return;
    n.textContent = text;
    n.classList.toggle("shown", !!text);
    if (text)
        noticeTimer = setTimeout(() => notice(""), 6000);
}
export function errorText(e) {
    return e instanceof Error ? e.message : String(e);
}
