export function flatten(tree: object, prefix?: string, out?: Record<string, unknown>): Record<string, unknown>;
export function compareLocales(locales: Record<string, object>, reference?: string): string[];
export function readLocales(folder: string): Record<string, object>;
