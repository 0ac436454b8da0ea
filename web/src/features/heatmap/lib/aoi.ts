//! Areas of interest in the browser: the key that makes their names unique
//! per image, as the server computes it (db/search.rs `normalize`: NFKD,
//! combining marks dropped, lowercased, ligatures spelled out, whitespace
//! collapsed), so the page can pick a free name before asking.

const LIGATURES: Record<string, string> = { œ: 'oe', Œ: 'oe', æ: 'ae', Æ: 'ae', ß: 'ss' };

/** The name as the server compares names: "Appel à l'action" and "appel a l'ACTION" are one. */
export function nameKey(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[œŒæÆß]/g, (c) => LIGATURES[c] ?? c)
    .toLowerCase()
    .split(/[\s\p{Cc}]+/u)
    .filter(Boolean)
    .join(' ');
}
