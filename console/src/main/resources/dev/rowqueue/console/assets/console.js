// rowqueue console: the only script. Pages work without it; with it, a page marked data-refresh reloads itself every
// so many seconds while its tab is visible and nobody is typing or reading an opened payload, and the one-time notice
// of a change is dropped from the address so a reload does not show it again. No inline script, no eval, no data.
(function () {
  'use strict';
  var url = new URL(window.location.href);
  if (url.searchParams.has('done')) {
    ['done', 'id', 'count', 'name'].forEach(function (p) { url.searchParams.delete(p); });
    window.history.replaceState(null, '', url.pathname + (url.search ? url.search : '') + url.hash);
  }
  var seconds = parseInt(document.body.getAttribute('data-refresh') || '0', 10);
  if (!(seconds > 0)) {
    return;
  }
  var note = document.querySelector('.refresh-note');
  if (note) {
    note.hidden = false;
  }
  function busy() {
    var active = document.activeElement;
    return document.visibilityState !== 'visible'
      || (active && /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName))
      || document.querySelector('details[open]') !== null;
  }
  var due = Date.now() + seconds * 1000;
  window.setInterval(function () {
    if (Date.now() >= due && !busy()) {
      window.location.reload();
    }
  }, 1000);
  document.addEventListener('visibilitychange', function () {
    if (document.visibilityState === 'visible' && Date.now() >= due) {
      due = Date.now() + 1000; // back on a stale page: refresh soon, not at once on every flicker
    }
  });
})();
