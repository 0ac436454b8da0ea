import { describe, expect, it } from 'vitest';

import { leafletAttribution, leafletText } from './leaflet-text';

const MARKUP = `<style>#root{filter:invert(1)}</style><img src=x onerror="alert('1')"> & co`;

describe('leafletText', () => {
  it('holds the words as a single text node', () => {
    const element = leafletText(MARKUP);
    expect(element.textContent).toBe(MARKUP);
    expect(element.childNodes).toHaveLength(1);
    expect(element.firstChild?.nodeType).toBe(Node.TEXT_NODE);
  });
});

describe('leafletAttribution', () => {
  it('renders as exactly the words when set as HTML', () => {
    const element = document.createElement('div');
    element.innerHTML = leafletAttribution(MARKUP);
    expect(element.textContent).toBe(MARKUP);
    expect(element.children).toHaveLength(0);
  });
});
