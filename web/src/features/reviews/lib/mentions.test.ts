import { describe, expect, it } from 'vitest';

import { insertMention, matchingAddresses, mentionAt, splitMentions } from './mentions';

const marked = (body: string, addresses: string[] | null) =>
  splitMentions(body, addresses)
    .filter((part) => part.mention)
    .map((part) => part.text);

describe('splitMentions', () => {
  it('finds the mentioned addresses in any case, where they end (as the server reads them)', () => {
    const addresses = ['ana@agence.fr', 'bo@agence.fr'];
    expect(marked('Vu, @Ana@Agence.fr. Et @bo@agence.fr ?', addresses)).toEqual(['@Ana@Agence.fr', '@bo@agence.fr']);
    expect(marked('@bo@agence.fr.example seul', addresses)).toEqual([]);
    expect(marked('ana@agence.fr sans arobase', addresses)).toEqual([]);
  });

  it('keeps every character, in order', () => {
    const body = 'Salut @ana@agence.fr,\nà toi.';
    expect(splitMentions(body, ['ana@agence.fr']).map((part) => part.text).join('')).toBe(body);
    expect(splitMentions('', [])).toEqual([{ text: '', mention: false }]);
  });

  it('marks every @address when the mentioned ones are not known', () => {
    expect(marked('Pour @eve@old.example.com. Merci', null)).toEqual(['@eve@old.example.com']);
  });
});

describe('the mention being typed', () => {
  it('is the @… just before the caret, at a word start', () => {
    expect(mentionAt('Bonjour @cl', 11)).toEqual({ start: 8, query: 'cl' });
    expect(mentionAt('@', 1)).toEqual({ start: 0, query: '' });
    expect(mentionAt('mail@cl', 7)).toBeNull();
    expect(mentionAt('@cl fini', 8)).toBeNull();
  });

  it('is replaced by the address picked, the caret after it', () => {
    expect(insertMention('Bonjour @cl merci', 8, 11, 'cleo@client.fr')).toEqual({ text: 'Bonjour @cleo@client.fr merci', caret: 24 });
    expect(insertMention('@c', 0, 2, 'cleo@client.fr')).toEqual({ text: '@cleo@client.fr ', caret: 16 });
  });

  it('offers the addresses that start with it first', () => {
    expect(matchingAddresses(['marc@x.fr', 'cleo@client.fr', 'ana@cl.fr'], 'cl')).toEqual(['cleo@client.fr', 'ana@cl.fr']);
  });
});
