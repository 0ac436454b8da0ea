// Helpers a suite calls from inside the page (`page.evaluate`), as the signed-in user: draw an
// image on a canvas, upload it, and call the API. Installed once per page by `installPageApi`;
// a test then uses `window.regardTest` in its evaluated functions.

/** Defines `window.regardTest = { draw, upload, post }` in the page (after sign-in). */
export async function installPageApi(page) {
  await page.evaluate(() => {
    const headers = () => ({ Authorization: `Bearer ${JSON.parse(localStorage.getItem('regard-auth-token')).access_token}` });
    /** A PNG blob of `w × h` pixels painted by `paint(ctx, w, h)`. */
    const draw = (w, h, paint) => {
      const canvas = document.createElement('canvas');
      canvas.width = w;
      canvas.height = h;
      paint(canvas.getContext('2d'), w, h);
      return new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
    };
    /** Uploads a blob; the new media's id. */
    const upload = async (blob, name) => {
      const form = new FormData();
      form.append('file', blob, name);
      const answer = await fetch('/api/v1/media', { method: 'POST', headers: headers(), body: form });
      if (!answer.ok) throw new Error(`upload ${answer.status} ${await answer.text()}`);
      return (await answer.json()).id;
    };
    /** `POST /api/v1{path}` with a JSON body; the answer's JSON. */
    const post = async (path, body) => {
      const answer = await fetch(`/api/v1${path}`, {
        method: 'POST',
        headers: { ...headers(), 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!answer.ok) throw new Error(`${path} ${answer.status} ${await answer.text()}`);
      return answer.json();
    };
    window.regardTest = { draw, upload, post };
  });
}
