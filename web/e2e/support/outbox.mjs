// The development outbox of a server started by server.mjs: with no SMTP configured, every mail is
// written as <data_dir>/outbox/mail-<epoch_ms>-<uuid>.eml and every SMS as sms-<epoch_ms>-<uuid>.json.
// Waits on the file appearing (a condition), never on a fixed delay.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

async function outboxFiles(dataDir, prefix) {
  try {
    return (await readdir(join(dataDir, 'outbox'))).filter((name) => name.startsWith(prefix)).sort();
  } catch {
    return [];
  }
}

/** Waits for a new file `prefix*` (not in `seen`) and returns its name. */
async function waitForFile(dataDir, prefix, seen, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const fresh = (await outboxFiles(dataDir, prefix)).filter((name) => !seen.includes(name));
    if (fresh.length > 0) return fresh[fresh.length - 1];
    if (Date.now() > deadline) throw new Error(`no ${prefix} file in ${dataDir}/outbox after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Decodes one MIME part's body by its Content-Transfer-Encoding. */
function decodePart(headers, body) {
  const encoding = /content-transfer-encoding:\s*([\w-]+)/i.exec(headers)?.[1]?.toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

/** Every text part of a (multipart) message, decoded and joined. */
export function mailText(raw) {
  const texts = [];
  const visit = (entity) => {
    const split = entity.search(/\r?\n\r?\n/);
    const headers = split === -1 ? entity : entity.slice(0, split);
    const body = split === -1 ? '' : entity.slice(split).replace(/^\r?\n\r?\n/, '');
    const boundary = /boundary="?([^";\r\n]+)"?/i.exec(headers.replace(/\r?\n\s+/g, ' '))?.[1];
    if (boundary && /content-type:\s*multipart\//i.test(headers)) {
      for (const part of body.split(`--${boundary}`).slice(1)) {
        if (!part.startsWith('--')) visit(part.replace(/^\r?\n/, ''));
      }
    } else {
      texts.push(decodePart(headers, body));
    }
  };
  visit(raw);
  return texts.join('\n');
}

/** A snapshot of the outbox, to wait for what comes after it. */
export async function outboxMark(dataDir) {
  return [...(await outboxFiles(dataDir, 'mail-')), ...(await outboxFiles(dataDir, 'sms-'))];
}

/** Waits for the next mail and returns its decoded text. */
export async function nextMail(dataDir, seen) {
  const name = await waitForFile(dataDir, 'mail-', seen);
  return mailText(await readFile(join(dataDir, 'outbox', name), 'utf8'));
}

/** Waits for the next SMS and returns `{to, body}`. */
export async function nextSms(dataDir, seen) {
  const name = await waitForFile(dataDir, 'sms-', seen);
  return JSON.parse(await readFile(join(dataDir, 'outbox', name), 'utf8'));
}

/** The first `/auth/v1/verify` link of a mail's text, with HTML entities undone. */
export function verifyLink(text) {
  const match = /https?:\/\/[^\s"'<>]+\/auth\/v1\/verify\?[^\s"'<>]+/.exec(text);
  if (!match) throw new Error(`no /auth/v1/verify link in the mail:\n${text}`);
  return match[0].replace(/&amp;/g, '&');
}
