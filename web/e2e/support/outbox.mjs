// The development outbox of a server started by server.mjs: with no SMTP configured, every mail is
// written as <data_dir>/outbox/mail-<epoch_ms>-<uuid>.eml and every SMS as sms-<epoch_ms>-<uuid>.json.
// Waits on the folder changing (fs.watch), never on a fixed delay or a polling loop.
import { watch } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

async function outboxFiles(dataDir, prefix) {
  try {
    return (await readdir(join(dataDir, 'outbox'))).filter((name) => name.startsWith(prefix)).sort();
  } catch {
    return [];
  }
}

/**
 * Waits for a new file `prefix*` (not in `seen`) and returns its name. The folder is watched
 * before the first look, so a file written in between is not missed; each change looks again.
 */
async function waitForFile(dataDir, prefix, seen, timeoutMs = 15_000) {
  const dir = join(dataDir, 'outbox');
  // The server creates it with the first message; it keeps the same private mode.
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const watcher = watch(dir);
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${prefix} file in ${dir} after ${timeoutMs} ms`)), timeoutMs);
      const look = async () => {
        const fresh = (await outboxFiles(dataDir, prefix)).filter((name) => !seen.includes(name));
        if (fresh.length > 0) {
          clearTimeout(timer);
          resolve(fresh[fresh.length - 1]);
        }
      };
      watcher.on('change', () => look().catch(reject));
      watcher.on('error', reject);
      look().catch(reject);
    });
  } finally {
    watcher.close();
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
