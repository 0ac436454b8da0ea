//! The conversation of this tab, kept in sessionStorage (one per tab, gone
//! when the tab closes) and cleared when the user signs out (app/provider.tsx),
//! so the next person on the computer does not see it.
import type { ChatLink } from '../api/chat';

export type ChatMessage =
  | { id: number; author: 'user'; text: string }
  | { id: number; author: 'assistant'; text: string; links: ChatLink[]; error?: undefined }
  /** A failed question: the text is a translation key, shown in the current language. */
  | { id: number; author: 'assistant'; error: string; text?: undefined; links?: undefined };

export const CONVERSATION_KEY = 'regard-assistant';
/** Messages kept (the oldest go first). */
export const MAX_KEPT = 40;

function isMessage(value: unknown): value is ChatMessage {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Record<string, unknown>;
  if (typeof m.id !== 'number') return false;
  if (m.author === 'user') return typeof m.text === 'string';
  if (m.author !== 'assistant') return false;
  if (typeof m.error === 'string') return true;
  return typeof m.text === 'string' && Array.isArray(m.links);
}

export function loadConversation(): ChatMessage[] {
  try {
    const raw = window.sessionStorage.getItem(CONVERSATION_KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : [];
    return Array.isArray(parsed) ? parsed.filter(isMessage) : [];
  } catch {
    return [];
  }
}

export function saveConversation(messages: ChatMessage[]) {
  try {
    window.sessionStorage.setItem(CONVERSATION_KEY, JSON.stringify(messages.slice(-MAX_KEPT)));
  } catch {
    // Storage full or refused (private mode): the conversation just is not kept.
  }
}

export function clearConversation() {
  try {
    window.sessionStorage.removeItem(CONVERSATION_KEY);
  } catch {
    // Nothing to clear.
  }
}
