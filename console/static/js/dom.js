export function h(tag, attrs = {}, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
        if (v === null || v === undefined || v === false)
            continue;
        if (k.startsWith("on") && typeof v === "function")
            el.addEventListener(k.slice(2), v);
        else if (v === true)
            el.setAttribute(k, "");
        else
            el.setAttribute(k, String(v));
    }
    append(el, children);
    return el;
}
function append(el, children) {
    for (const c of children) {
        if (c === null || c === undefined || c === false)
            continue;
        if (Array.isArray(c))
            append(el, c);
        else
            el.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    }
}
export function replace(el, ...children) {
    el.replaceChildren();
    append(el, children);
}
export function $(id) {
    const el = document.getElementById(id);
    if (!el)
        throw new Error(`#${id} is missing`);
    return el;
}
export function focusKey(root) {
    const a = document.activeElement;
    if (!a || a === root || !root.contains(a))
        return null;
    if (a.id)
        return ["#" + CSS.escape(a.id)];
    const path = [];
    for (let e = a.parentElement; e && e !== root; e = e.parentElement) {
        if (e.id) {
            path.unshift("#" + CSS.escape(e.id));
            break;
        }
        for (const d of ["call", "conv", "step"]) {
            const v = e.getAttribute("data-" + d);
            if (v !== null)
                path.unshift(`[data-${d}="${CSS.escape(v)}"]`);
        }
    }
    const tag = a.tagName.toLowerCase();
    return [...path, a.classList[0] ? `${tag}.${CSS.escape(a.classList[0])}` : tag, tag];
}
export function restoreFocus(root, key, last, force = false) {
    if (!force && document.activeElement && document.activeElement !== document.body)
        return;
    const path = key.length > 1 ? key.slice(0, -2) : [];
    const tries = key.length > 1 ? [[...path, key[key.length - 2]], [...path, key[key.length - 1]]].map((k) => k.join(" ")) : [key[0]];
    if (path[0]?.startsWith("#"))
        tries.push(path[0]);
    for (const sel of tries) {
        const el = root.querySelector(sel) ?? (root.matches(sel) ? root : null);
        if (el && moveFocus(el))
            return;
    }
    if (last)
        moveFocus(last);
}
export function moveFocus(el) {
    if (el.tabIndex < 0 && !el.hasAttribute("tabindex"))
        el.setAttribute("tabindex", "-1");
    el.focus({ preventScroll: true });
    return document.activeElement === el;
}
