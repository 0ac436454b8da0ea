import { describe, expect, it } from 'vitest';

import { i18n } from '@/lib/i18n';

import type { Region } from '../api/heatmaps';

import { adviceFor, combined, describeAttention, type AnalysisInput } from './analysis';

/** Intl writes a (narrow) no-break space before % in French; compare with plain spaces. */
const plain = <T,>(value: T): T => JSON.parse(JSON.stringify(value).replace(/[\u00a0\u202f]/g, ' ')) as T;

const region = (share: number, area: number): Region => ({
  rect: { x: 0.1, y: 0.1, width: 0.1, height: 0.1 },
  confidence: 1,
  share,
  area,
  relative: share / area,
});

const poster: AnalysisInput = {
  score: 55.2,
  focus: 48,
  clarity: 45,
  entropy: 0.82,
  hotspots: [
    // Given out of order on purpose: the text follows the rank.
    { rank: 2, x: 0.5, y: 0.5, rect: { x: 0.4, y: 0.4, width: 0.2, height: 0.2 }, share: 0.18, area: 0.04 },
    { rank: 1, x: 0.2, y: 0.15, rect: { x: 0.1, y: 0.05, width: 0.2, height: 0.2 }, share: 0.31, area: 0.045 },
    { rank: 3, x: 0.85, y: 0.8, rect: { x: 0.8, y: 0.7, width: 0.1, height: 0.2 }, share: 0.09, area: 0.02 },
  ],
  faces: [region(0.12, 0.02)],
  texts: [region(0.05, 0.06), region(0.03, 0.04)],
};

describe('describeAttention', () => {
  it('names a place once: hotspots in the same ninth of the image add up, and a line says which point it is near', () => {
    const twice: AnalysisInput = {
      ...poster,
      hotspots: [
        { rank: 1, x: 0.2, y: 0.15, rect: { x: 0.1, y: 0.05, width: 0.2, height: 0.2 }, share: 0.31, area: 0.045 },
        { rank: 2, x: 0.85, y: 0.8, rect: { x: 0.8, y: 0.7, width: 0.1, height: 0.2 }, share: 0.09, area: 0.02 },
        { rank: 3, x: 0.1, y: 0.25, rect: { x: 0.05, y: 0.2, width: 0.1, height: 0.1 }, share: 0.05, area: 0.01 },
      ],
    };
    const analysis = plain(describeAttention(twice, i18n.getFixedT('fr'), 'fr'));
    expect(analysis.summary).toBe(
      "Le regard devrait se poser d'abord en haut à gauche (36 % de l'attention). Il se porte ensuite en bas à droite (9 %).",
    );
    expect(analysis.hotspots[2]).toBe("En haut à gauche, près du point 1 : 5 % de l'attention sur 1 % de la surface");
  });


  it('writes the analysis in French', () => {
    const analysis = plain(describeAttention(poster, i18n.getFixedT('fr'), 'fr'));
    expect(analysis.summary).toBe(
      "Le regard devrait se poser d'abord en haut à gauche (31 % de l'attention). Il se porte ensuite au centre (18 %), puis en bas à droite (9 %).",
    );
    expect(analysis.hotspots).toEqual([
      "En haut à gauche : 31 % de l'attention sur 4,5 % de la surface",
      "Au centre : 18 % de l'attention sur 4 % de la surface",
      "En bas à droite : 9 % de l'attention sur 2 % de la surface",
    ]);
    expect(analysis.faces).toBe("Un visage détecté : il capte 12 % de l'attention, soit ×6 par rapport à sa taille.");
    expect(analysis.texts).toBe(
      "2 zones qui ressemblent à du texte : elles captent 8 % de l'attention, soit ×0,8 par rapport à leur taille.",
    );
    expect(analysis.advice).toEqual([
      'Plusieurs zones se disputent le premier regard : renforcez celle qui porte votre message et atténuez les autres.',
      "Le texte reçoit moins d'attention que sa taille ne le justifie : agrandissez-le, augmentez son contraste ou rapprochez-le du premier point regardé.",
      "Les visages attirent fortement le regard : placez votre message ou votre marque près d'eux, ou dans la direction où ils regardent.",
      'Vérifiez que le premier point regardé porte votre marque ou votre message.',
    ]);
  });

  it('writes the same analysis in English', () => {
    const analysis = describeAttention(poster, i18n.getFixedT('en'), 'en');
    expect(analysis.summary).toBe(
      'The eye should land first on the top left (31% of attention). It then moves to the centre (18%), then to the bottom right (9%).',
    );
    expect(analysis.hotspots).toEqual([
      'The top left: 31% of attention on 4.5% of the surface',
      'The centre: 18% of attention on 4% of the surface',
      'The bottom right: 9% of attention on 2% of the surface',
    ]);
    expect(analysis.faces).toBe('One face found: it draws 12% of attention, ×6 its share of the surface.');
    expect(analysis.texts).toBe('2 text-like regions: together they draw 8% of attention, ×0.8 their share of the surface.');
    expect(analysis.advice[0]).toBe(
      'Several areas compete for the first look: strengthen the one that carries your message and tone down the others.',
    );
    expect(analysis.advice).toHaveLength(4);
  });

  it('says when nothing stands out and nothing was found', () => {
    const flat: AnalysisInput = { score: 12, focus: 5, clarity: 30, entropy: 0.97, hotspots: [], faces: [], texts: [] };
    const fr = plain(describeAttention(flat, i18n.getFixedT('fr'), 'fr'));
    expect(fr.summary).toBe("Aucune zone ne se détache nettement : l'attention se répartit sur l'image.");
    expect(fr.hotspots).toEqual([]);
    expect(fr.faces).toBe('Aucun visage détecté.');
    expect(fr.texts).toBe('Aucune zone de texte repérée.');
    const en = describeAttention(flat, i18n.getFixedT('en'), 'en');
    expect([en.summary, en.faces, en.texts]).toEqual([
      'No area clearly stands out: attention spreads over the image.',
      'No face found.',
      'No text-like region found.',
    ]);
    expect(en.advice[0]).toMatch(/^Nothing leads the eye/);
  });

  it('one hotspot: no "then" sentence; several faces: plural', () => {
    const single: AnalysisInput = {
      ...poster,
      hotspots: [poster.hotspots[1]],
      faces: [region(0.1, 0.02), region(0.05, 0.01)],
    };
    const en = describeAttention(single, i18n.getFixedT('en'), 'en');
    expect(en.summary).toBe('The eye should land first on the top left (31% of attention).');
    expect(en.faces).toBe('2 faces found: together they draw 15% of attention, ×5 their share of the surface.');
  });
});

describe('adviceFor', () => {
  const base: AnalysisInput = { score: 60, focus: 50, clarity: 60, entropy: 0.8, hotspots: [], faces: [], texts: [region(0.1, 0.1)] };

  it('always gives two to four pieces of advice', () => {
    expect(adviceFor(base)).toEqual(['firstLook', 'compare']);
    expect(adviceFor(poster)).toHaveLength(4);
    expect(adviceFor({ ...base, score: 10, clarity: 20, entropy: 0.95, focus: 10, texts: [] })).toEqual([
      'scattered',
      'clutter',
      'noText',
      'firstLook',
    ]);
  });

  it('follows the documented rules', () => {
    expect(adviceFor({ ...base, score: 82 })).toEqual(['strong', 'firstLook', 'compare']);
    expect(adviceFor({ ...base, texts: [region(0.2, 0.05)] })[0]).toBe('textStrong');
    expect(adviceFor({ ...base, texts: [region(0.02, 0.1)] })[0]).toBe('textLow');
    expect(adviceFor({ ...base, faces: [region(0.1, 0.02)] })[0]).toBe('facesStrong');
    expect(adviceFor({ ...base, hotspots: [{ ...poster.hotspots[0], rank: 1, x: 0.95, y: 0.5 }] })[0]).toBe('edge');
    // Competing needs two hotspots or more.
    expect(adviceFor({ ...base, clarity: 40, hotspots: [poster.hotspots[0]] })).not.toContain('competing');
  });

  it('adds up regions', () => {
    const total = combined([region(0.1, 0.02), region(0.05, 0.03)]);
    expect([total.share, total.area, total.relative].map((value) => Number(value.toFixed(9)))).toEqual([0.15, 0.05, 3]);
    expect(combined([])).toEqual({ share: 0, area: 0, relative: 0 });
  });
});
