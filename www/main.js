// Bootstrap. Kept small and free of static imports so that whatever fails to
// load (the package not built yet, a module error, a network hiccup) ends in a
// visible message instead of a silent, half-working page.

const PACKAGE_URL = '../pkg/dist/index.mjs';
const MAX_NOTICES = 4;

const noticeRegion = document.getElementById('notices');

/**
 * Shows a message in the page's live region. A notice with the same `key`
 * replaces the previous one, so a failure repeated every turn is one message.
 */
function notify({ key, level = 'info', text }) {
  const existing = [...noticeRegion.children].find((node) => node.dataset.key === key);
  const notice = document.createElement('div');
  notice.className = `notice notice-${level}`;
  notice.dataset.key = key;
  const message = document.createElement('p');
  message.textContent = text;
  const dismiss = document.createElement('button');
  dismiss.type = 'button';
  dismiss.className = 'notice-dismiss';
  dismiss.textContent = 'Dismiss';
  dismiss.setAttribute('aria-label', `Dismiss: ${text.slice(0, 60)}`);
  dismiss.addEventListener('click', () => notice.remove());
  notice.append(message, dismiss);
  if (existing) existing.replaceWith(notice);
  else noticeRegion.prepend(notice);
  while (noticeRegion.children.length > MAX_NOTICES) noticeRegion.lastElementChild.remove();
}

function clearNotice(key) {
  [...noticeRegion.children].filter((node) => node.dataset.key === key).forEach((node) => node.remove());
}

const describe = (error) => (error instanceof Error ? error.message || error.name : String(error));

window.addEventListener('error', (event) => {
  notify({ key: 'uncaught', level: 'error', text: `Unexpected error: ${describe(event.error ?? event.message)}` });
});
window.addEventListener('unhandledrejection', (event) => {
  notify({ key: 'uncaught', level: 'error', text: `Unexpected error: ${describe(event.reason)}` });
});

async function boot() {
  let api;
  try {
    api = await import(PACKAGE_URL);
  } catch (error) {
    notify({
      key: 'package',
      level: 'error',
      text:
        `The footprint-summarize package could not be loaded from ${PACKAGE_URL} (${describe(error)}). ` +
        'Build it with `bash scripts/build.sh` in the repository, then reload this page.',
    });
    document.getElementById('conversation-status').textContent = 'The package is not loaded, so nothing can run yet.';
    return;
  }
  try {
    const { startPlayground } = await import('./app.js');
    await startPlayground({ api, notify, clearNotice });
  } catch (error) {
    notify({ key: 'startup', level: 'error', text: `The playground failed to start: ${describe(error)}` });
  }
}

boot();
