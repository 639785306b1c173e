// An artifact's size raw, gzipped (level 9) and brotli-compressed (quality
// 11), as the size table reports it.
import { gzipSync, brotliCompressSync, constants as zlibConstants } from 'node:zlib';

export function compressedSizes(bytes) {
  return {
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}
