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
