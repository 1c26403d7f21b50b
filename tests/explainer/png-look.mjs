// png-look.mjs - what a test's mock model "sees" in a PNG the explainer
// worker's tools answered with: the PNG decoded (8-bit RGB or RGBA, not
// interlaced: what renderer/png.c writes) and named pixels compared with
// the colours the scene draws there, so a test knows the preview shows the
// scene at the time asked for, not only that some PNG came back.
//
//   lookProblem(pngBytes, [{ x: 0.16, y: 0.5, colour: "#f0c040", what: "the dot" }, ...])
//
// x and y are fractions of the width and height; the colour must match
// within 24 per channel (antialiasing and BT.709 rounding aside, a flat
// area is exact).  Returns why not, or null.
import zlib from "node:zlib";

const SIGNATURE = Buffer.from("89504e470d0a1a0a", "hex");

function paeth(a, b, c) {
  const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

// { width, height, rgb(x, y) } or a string saying why the bytes are no such PNG.
export function decodePng(buf) {
  if (!buf.subarray(0, 8).equals(SIGNATURE)) return "not a PNG";
  let width = 0, height = 0, channels = 0;
  const idat = [];
  for (let off = 8; off + 8 <= buf.length;) {
    const len = buf.readUInt32BE(off), type = buf.toString("latin1", off + 4, off + 8);
    const data = buf.subarray(off + 8, off + 8 + len);
    if (type === "IHDR") {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || data[12] !== 0 || (data[9] !== 2 && data[9] !== 6))
        return `an IHDR this reader does not take (depth ${data[8]}, colour type ${data[9]}, interlace ${data[12]})`;
      channels = data[9] === 6 ? 4 : 3;
    } else if (type === "IDAT") idat.push(data);
    else if (type === "IEND") break;
    off += 12 + len;
  }
  if (!width || !height) return "no IHDR";
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * channels, px = Buffer.alloc(stride * height);
  if (raw.length < (stride + 1) * height) return "the image data is short";
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)], row = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? px[y * stride + i - channels] : 0;
      const b = y > 0 ? px[(y - 1) * stride + i] : 0;
      const c = y > 0 && i >= channels ? px[(y - 1) * stride + i - channels] : 0;
      const pred = filter === 0 ? 0 : filter === 1 ? a : filter === 2 ? b : filter === 3 ? (a + b) >> 1 : paeth(a, b, c);
      if (filter > 4) return `row ${y} has filter ${filter}`;
      px[y * stride + i] = (row[i] + pred) & 0xff;
    }
  }
  return { width, height, rgb: (x, y) => [...px.subarray(y * stride + x * channels, y * stride + x * channels + 3)] };
}

export function lookProblem(buf, look) {
  const img = decodePng(buf);
  if (typeof img === "string") return img;
  for (const p of look) {
    const x = Math.min(img.width - 1, Math.round(p.x * img.width)), y = Math.min(img.height - 1, Math.round(p.y * img.height));
    const got = img.rgb(x, y), want = [1, 3, 5].map((i) => parseInt(p.colour.slice(i, i + 2), 16));
    if (got.some((v, i) => Math.abs(v - want[i]) > 24))
      return `${p.what} at (${x}, ${y}) of the ${img.width}x${img.height} image is rgb(${got}), not ${p.colour}`;
  }
  return null;
}
