// Chromium for the page tests, launched from the system binary with the same
// binary and flags `wasm-pack test --chrome` gets from webdriver.json (one
// list for both; never a browser download).
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const { binary, args } = JSON.parse(readFileSync(new URL('../../../webdriver.json', import.meta.url), 'utf8'))[
  'goog:chromeOptions'
];

export function launchChromium() {
  return chromium.launch({ executablePath: binary, args });
}

/**
 * Records what a page reports going wrong: uncaught errors and console
 * errors. `onPageError` also hears each uncaught error.
 */
export function recordPageProblems(page, onPageError = () => {}) {
  const problems = [];
  page.on('pageerror', (error) => {
    problems.push(`pageerror: ${error.stack || error.message}`);
    onPageError(error);
  });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console.error: ${message.text()}`);
  });
  return problems;
}
