// Loads any module that exports the summarize API, ESM or CommonJS, by path.
import { createRequire } from 'node:module';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const REQUIRED_EXPORTS = [
  'summarize',
  'summaryEntryId',
  'summaryCoverage',
  'isSummaryEntry',
  'SUMMARY_ID_PREFIX',
  'SUMMARY_COVERAGE_KEY',
  'SUMMARY_FRAME_PREFIX',
];

export async function loadSummarizeApi(path) {
  const absolutePath = resolve(path);
  const namespace =
    extname(absolutePath) === '.cjs'
      ? createRequire(import.meta.url)(absolutePath)
      : await import(pathToFileURL(absolutePath).href);
  // A CommonJS module imported as ESM may only expose its exports on `default`.
  const api = typeof namespace.summarize === 'function' ? namespace : namespace.default;
  const missing = REQUIRED_EXPORTS.filter((name) => api?.[name] === undefined);
  if (missing.length > 0) {
    throw new Error(`${path} does not export the summarize API (missing: ${missing.join(', ')})`);
  }
  return api;
}
