// A tiny element builder: h("button", {class: "x", onclick}, "Apply").

type Child = Node | string | null | undefined | false | Child[];
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v as EventListener);
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  }
}

/** replace puts children in place of el's. */
export function replace(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

export function $(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing`);
  return el;
}

// Focus across a redraw (docs/decisions.md, "The console's focus rules"): the key of the focused
// element is taken before the redraw, and its replacement focused after it.

/** focusKey names the focused element inside root: its id, or the ids and data-call/conv/step of its ancestors and its tag and first class (null: the focus is elsewhere). */
export function focusKey(root: Element): string[] | null {
  const a = document.activeElement;
  if (!a || a === root || !root.contains(a)) return null;
  if (a.id) return ["#" + CSS.escape(a.id)];
  const path: string[] = [];
  for (let e = a.parentElement; e && e !== root; e = e.parentElement) {
    if (e.id) { path.unshift("#" + CSS.escape(e.id)); break; }
    for (const d of ["call", "conv", "step"]) {
      const v = e.getAttribute("data-" + d);
      if (v !== null) path.unshift(`[data-${d}="${CSS.escape(v)}"]`);
    }
  }
  const tag = a.tagName.toLowerCase();
  return [...path, a.classList[0] ? `${tag}.${CSS.escape(a.classList[0])}` : tag, tag];
}

/** restoreFocus focuses the replacement of the element key named, when the redraw lost the focus (or force): the same element, else one of its tag in the same place, else the nearest ancestor with an id (an article), else last. */
export function restoreFocus(root: Element, key: string[], last?: HTMLElement, force = false): void {
  if (!force && document.activeElement && document.activeElement !== document.body) return;
  const path = key.length > 1 ? key.slice(0, -2) : [];
  const tries = key.length > 1 ? [[...path, key[key.length - 2]], [...path, key[key.length - 1]]].map((k) => k.join(" ")) : [key[0]];
  if (path[0]?.startsWith("#")) tries.push(path[0]);
  for (const sel of tries) {
    const el = root.querySelector<HTMLElement>(sel) ?? (root.matches(sel) ? (root as HTMLElement) : null);
    if (el && moveFocus(el)) return;
  }
  if (last) moveFocus(last);
}

/** moveFocus focuses el (one that takes no focus of its own gets tabindex -1); false when it cannot take it (disabled, hidden). */
export function moveFocus(el: HTMLElement): boolean {
  if (el.tabIndex < 0 && !el.hasAttribute("tabindex")) el.setAttribute("tabindex", "-1");
  el.focus({ preventScroll: true });
  return document.activeElement === el;
}
