"""What the contract check tells Schemathesis that a JSON Schema cannot say.

The document says the shape of every request; a few rules of the server are about the data,
not the shape: an id in a body must name one of the caller's rows, a cursor must be one the
server handed out, an upload must be a decodable image, a panel's four corners must make a
convex quadrilateral listed clockwise, a latitude comes with its longitude (a screen's width with its height), viewing distances
come nearest first, and a panel outline
needs a photo, an area of interest is one shape inside the image under a name of its own. In
*positive* cases only (requests the document says are valid), `before_call`
puts real values there: ids of rows made here at start-up, a cursor asked for just before, a
real PNG, a valid outline, an inventory file that names its photo in a real ZIP. Everything
else stays as generated, and negative cases (requests
the document says are invalid) are sent untouched, so the server must still refuse them.

Path ids are left as generated: an id of nothing is a 404, which every check accepts. A
workspace named in `X-Workspace-Id` is the caller's personal one (its id is the caller's).
"""

import io
import itertools
import json
import os
import struct
import urllib.error
import urllib.parse
import urllib.request
import uuid
import zipfile
import zlib

import schemathesis
from schemathesis.transport.serialization import Binary

BASE = os.environ["REGARD_CONTRACT_URL"]
TOKEN = os.environ["REGARD_CONTRACT_TOKEN"]
QUAD = [{"x": 0.2, "y": 0.2}, {"x": 0.8, "y": 0.25}, {"x": 0.8, "y": 0.75}, {"x": 0.2, "y": 0.8}]


def png(width: int = 96, height: int = 64) -> bytes:
    """A small RGB gradient as a PNG."""
    rows = b"".join(
        b"\x00" + bytes(v for x in range(width) for v in (x * 255 // width, y * 255 // height, 128))
        for y in range(height)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


IMAGE = png()


def call(method: str, path: str, body=None, multipart: bytes | None = None):
    headers = {"Authorization": f"Bearer {TOKEN}"}
    data = None
    if multipart is not None:
        boundary = uuid.uuid4().hex
        headers["Content-Type"] = f"multipart/form-data; boundary={boundary}"
        data = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="seed.png"\r\n'
            f"Content-Type: image/png\r\n\r\n"
        ).encode() + multipart + f"\r\n--{boundary}--\r\n".encode()
    elif body is not None:
        headers["Content-Type"] = "application/json"
        data = json.dumps(body).encode()
    request = urllib.request.Request(BASE + path, data=data, headers=headers, method=method)
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)


def seed() -> None:
    """Two of each kind of item, so that every list has a second page."""
    media = [call("POST", "/media", multipart=IMAGE)["id"] for _ in range(2)]
    for i, m in enumerate(media):
        rows = fresh_rows(m)
        call("POST", "/simulations", {"creative_id": rows["creative"], "location_id": rows["location"], "render": False})
        call("POST", "/heatmaps", {"name": f"Study {i}", "media_ids": media})


def fresh_rows(media: str | None = None) -> dict:
    """An image, a creative of it and a location with it as photo, an outline and a standard
    format (so a size, which a simulation's view from a distance needs), made now: the checks
    delete what they find, so rows made at start-up may be gone."""
    media = media or call("POST", "/media", multipart=IMAGE)["id"]
    creative = call("POST", "/creatives", {"media_id": media, "name": "Creative"})["id"]
    location = call(
        "POST",
        "/locations",
        {"name": "Site", "photo_media_id": media, "panel_quad": QUAD, "format": "mupi_2m2"},
    )["id"]
    return {"media": media, "creative": creative, "location": location}


seed()

# The caller's personal workspace: a library request that names a workspace (`X-Workspace-Id`)
# names this one in positive cases, since a made-up one is a 404 before anything is checked.
PERSONAL = call("GET", "/workspaces")["items"][0]["id"]

NUMBERS = itertools.count(1)

# Body fields naming one of the caller's rows, and the row each gets.
REFERENCES = {
    "media_id": "media",
    "photo_media_id": "media",
    "logo_media_id": "media",
    "creative_id": "creative",
    "location_id": "location",
}


def heatmap_items(heatmap_id: str) -> list[str]:
    """The ids of a heatmap's images (none when it is not the caller's)."""
    try:
        return [item["id"] for item in call("GET", f"/heatmaps/{heatmap_id}")["items"]]
    except urllib.error.HTTPError:
        return []


def server_cursor(path: str, query: dict) -> str | None:
    """The `next_cursor` of the first one-item page of this list with the same filters."""
    params = {k: v for k, v in query.items() if k not in ("cursor", "limit")}
    params["limit"] = 1
    try:
        page = call("GET", f"{path}?{urllib.parse.urlencode(params, doseq=True)}")
    except urllib.error.HTTPError:
        return None
    return page.get("next_cursor")


def real_body(body: dict, method: str, path: str) -> None:
    named = [k for k in (*REFERENCES, "media_ids", "location_ids") if body.get(k) is not None]
    if named:
        rows = fresh_rows()
        for key in named:
            if key == "media_ids":
                body[key] = [rows["media"]]
            elif key == "location_ids":
                body[key] = [rows["location"]]
            else:
                body[key] = rows[REFERENCES[key]]
    # The renders of a ZIP: a simulation of the caller's (not rendered: no worker runs here, so
    # the answer is 409 `not_rendered`, which the document gives).
    if path == "/simulations/renders.zip" and body.get("ids") is not None:
        rows = fresh_rows()
        simulation = call(
            "POST",
            "/simulations",
            {"creative_id": rows["creative"], "location_id": rows["location"], "render": False},
        )
        body["ids"] = [simulation["id"]]
    # A location's format is a string the server reads as a format's value or one of its names
    # (`12m2`, `4x3`, ...): a made-up one is `invalid_value`, so positive cases name a format.
    if path.startswith("/locations") and isinstance(body.get("format"), str):
        body["format"] = "billboard_4x3"
    # A mask must be a grey image: none is simpler than a second kind of upload.
    if body.get("mask_media_id") is not None:
        body["mask_media_id"] = None
    for key in ("quad", "panel_quad"):
        if body.get(key) is not None:
            body[key] = QUAD
    if body.get("panel_quad") is not None and body.get("photo_media_id") is None:
        body["photo_media_id"] = fresh_rows()["media"]
    # A location's outline needs its photo: taking the photo away takes the outline too.
    if method == "PATCH" and "photo_media_id" in body and body["photo_media_id"] is None:
        body["panel_quad"] = None
    # An area of interest: a rectangle or a polygon (not both), inside the image and at least
    # 1% of it, under a name no other area of the image has.
    if "/aois" in path and not path.endswith("/copy"):
        if body.get("rect") is not None or (method == "POST" and body.get("points") is None):
            body["rect"] = {"x": 0.1, "y": 0.1, "width": 0.3, "height": 0.3}
            body.pop("points", None)
        elif body.get("points") is not None:
            body["points"] = [{"x": 0.1, "y": 0.1}, {"x": 0.6, "y": 0.1}, {"x": 0.3, "y": 0.6}]
        if isinstance(body.get("name"), str):
            body["name"] = f"{body['name'][:60]} {next(NUMBERS)}"
    # The question is the last message, and it is the user's.
    messages = body.get("messages")
    if path == "/assistant/chat" and isinstance(messages, list) and messages:
        messages[-1]["role"] = "user"
    # A position is both coordinates or neither, after a change too: a change that gives one
    # gives the other (the row's may be set or not), a number beside a number, `null` beside
    # `null`.
    if "latitude" in body or "longitude" in body:
        latitude, longitude = body.get("latitude"), body.get("longitude")
        if latitude is None and longitude is None:
            body["latitude"] = body["longitude"] = None
        else:
            body["latitude"] = latitude if latitude is not None else 0.0
            body["longitude"] = longitude if longitude is not None else 0.0
    # A screen's two sides likewise.
    if "screen_width_px" in body or "screen_height_px" in body:
        width, height = body.get("screen_width_px"), body.get("screen_height_px")
        if width is None and height is None:
            body["screen_width_px"] = body["screen_height_px"] = None
        else:
            body["screen_width_px"] = width if width is not None else 1
            body["screen_height_px"] = height if height is not None else 1
    # The viewing distances are in order, whatever the row had: a change that gives one gives
    # both, the nearer first.
    if "viewing_distance_min_m" in body or "viewing_distance_max_m" in body:
        near, far = body.get("viewing_distance_min_m"), body.get("viewing_distance_max_m")
        if near is None and far is None:
            body["viewing_distance_min_m"] = body["viewing_distance_max_m"] = None
        else:
            near = near if near is not None else far
            far = far if far is not None else near
            body["viewing_distance_min_m"], body["viewing_distance_max_m"] = sorted([near, far])
    # A plan's period is in order, whatever the row had: a change that gives one day gives
    # both, the first first (ISO dates sort as text).
    if path.startswith("/plans") and ("start_date" in body or "end_date" in body):
        start, end = body.get("start_date"), body.get("end_date")
        if isinstance(start, str) or isinstance(end, str):
            start = start if isinstance(start, str) else end
            end = end if isinstance(end, str) else start
            body["start_date"], body["end_date"] = sorted([start, end])


@schemathesis.hook("map_body").apply_to(method="POST", path="/media")
def real_image(ctx, body):
    """An upload is a decodable image. Any generated file (a binary string, in a positive or a
    negative case) becomes a real PNG; a negative case stays negative through its other parts
    (a missing file, a wrong type, an unknown field). Done while generating, not before the
    call: Schemathesis cannot judge a file it did not make."""
    if not isinstance(body, dict):
        return body
    body = dict(body)
    if isinstance(body.get("file"), Binary):
        body["file"] = Binary(IMAGE)
    # A form field that is not text (`null`, a list) may be left out of the form when sent, and
    # an unknown field left out is no longer the violation the case is about: send it as text.
    for key, value in body.items():
        if key != "file" and not isinstance(value, (str, bytes, Binary)):
            body[key] = json.dumps(value)
    return body


def zip_of(name: str, data: bytes) -> bytes:
    """A ZIP holding one file."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name, data)
    return out.getvalue()


PHOTOS = zip_of("site.png", IMAGE)


def real_files(body: dict) -> None:
    """The generated files of an import's form (binary strings) made real ones, and its other
    fields sent as text (a `null` would otherwise go as an empty part, which is valid)."""
    files = (Binary, bytes)
    photos = isinstance(body.get("photos"), files)
    if isinstance(body.get("file"), files):
        row = "Contract site,site.png" if photos else "Contract site,"
        body["file"] = Binary(f"name,photo\n{row}\n".encode())
    if photos:
        body["photos"] = Binary(PHOTOS)
    for key, value in body.items():
        if key not in ("file", "photos") and not isinstance(value, (str, bytes, Binary)):
            body[key] = json.dumps(value)


@schemathesis.hook("map_body").apply_to(method="POST", path="/locations/import")
def real_inventory(ctx, body):
    """An inventory is a CSV with a name column; its photos a ZIP holding the file a row names.
    As for uploads, generated files become real ones, and a negative case stays negative through
    its other parts."""
    if not isinstance(body, dict):
        return body
    body = dict(body)
    real_files(body)
    return body


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    path, method = case.operation.path, case.method.upper()
    # The session the checks run in stays, whatever the case (a negative case or a step of the
    # stateful phase can name it too): ending it would leave every later call signed out.
    session_id = (case.path_parameters or {}).get("id")
    if path == "/account/sessions/{id}" and method == "DELETE" and session_id:
        current = [s["id"] for s in call("GET", "/account/sessions")["items"] if s["current"]]
        if session_id in current:
            case.path_parameters["id"] = str(uuid.uuid4())
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return
    # A case is positive only when each of its parts is (the mode of the whole can say positive
    # while one part was made invalid).
    if any(not component.mode.is_positive for component in meta.components.values()):
        return
    if case.headers and "X-Workspace-Id" in case.headers:
        case.headers["X-Workspace-Id"] = PERSONAL
    if isinstance(case.body, dict) and path == "/locations/import":
        # The coverage phase's files (a 1-pixel PNG) come without `map_body`. A body changed
        # here is checked against the schema again, which takes no `Binary` for a string: the
        # inventory goes as text (a part like any other to the server), the photos not at all.
        if isinstance(case.body.get("file"), (Binary, bytes)):
            case.body["file"] = "name\nContract site\n"
        case.body.pop("photos", None)
    elif isinstance(case.body, dict):
        real_body(case.body, method, path)
    # Images named beside a heatmap's id must be images of that heatmap.
    heatmap_id = (case.path_parameters or {}).get("id")
    if path.startswith("/heatmaps/{id}") and heatmap_id:
        items = heatmap_items(heatmap_id)
        if items and path == "/heatmaps/{id}/aois/copy" and isinstance(case.body, dict):
            case.body["from_item_id"] = items[0]
            case.body.pop("aoi_ids", None)
            if case.body.get("to_item_ids") is not None:
                case.body["to_item_ids"] = items[1:] or items
        if items and case.query and case.query.get("items"):
            case.query["items"] = ",".join(items[:2])
    if case.query and "cursor" in case.query:
        cursor = server_cursor(path, case.query)
        if cursor is None:
            del case.query["cursor"]
        else:
            case.query["cursor"] = cursor
