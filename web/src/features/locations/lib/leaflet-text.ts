//! Words for Leaflet, kept as words. Leaflet sets any *string* it is given for a tooltip, a popup
//! or an attribution as `innerHTML`, so a location named `<style>…</style>` or `<img onerror=…>`
//! became markup in every member's page. Everything a user (or the server's configuration) wrote
//! reaches Leaflet through one of these two helpers, never as a raw string.

/**
 * `text` as an element holding a single text node, for `bindTooltip`, `bindPopup`, `setContent`
 * and `setTooltipContent`: Leaflet appends an element as it is, so the words stay text.
 */
export function leafletText(text: string): HTMLElement {
  const element = document.createElement('span');
  element.textContent = text;
  return element;
}

/**
 * `text` escaped for Leaflet's attribution control. That control only takes strings (a layer's
 * `attribution` option, `addAttribution`), which it joins and sets as its `innerHTML`; it has no
 * way to take an element, so the only way to show the server's attribution as text inside it is
 * to escape it. The escaped string renders as exactly `text`.
 */
export function leafletAttribution(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
