"use strict";
// The gallery's views: every method (no address, or #all), one (#method/NAME), or two or three ports
// side by side for one method (#compare/METHOD/PORT,PORT[,PORT]). A cell's address
// (#port/method/n@k) is the report page's: its script (page.js) opens the cell on the same board,
// and the gallery shows that method beside it. Text from ports only ever reaches the page as data.
(() => {
  const $ = (id) => document.getElementById(id);
  const views = [...document.querySelectorAll("section.method")];
  const compare = $("compare");
  const viewer = $("viewer");
  const methods = views.map((view) => view.dataset.method);
  const cards = [...document.querySelectorAll("section.method article.entry")];
  const decode = (piece) => {
    try {
      return decodeURIComponent(piece);
    } catch {
      return null;
    }
  };

  function showOnly(shown) {
    for (const view of [...views, compare]) view.classList.toggle("away", !shown.includes(view));
  }

  function comparing(method, ports) {
    const found = ports.map((port) => cards.find((card) => card.dataset.method === method && card.dataset.port === port));
    const copies = found.filter(Boolean).map((card) => {
      const copy = card.cloneNode(true);
      copy.querySelectorAll("[id]").forEach((element) => element.removeAttribute("id"));
      return copy;
    });
    $("compare-view").replaceChildren(...copies);
    const missing = ports.filter((_, index) => !found[index]);
    $("compare-status").textContent = missing.length
      ? `No ${method} code of ${missing.join(", ")} here.`
      : `${method}: ${ports.join(", ")}, side by side.`;
    if (methods.includes(method)) $("compare-method").value = method;
    [0, 1, 2].forEach((index) => {
      const select = $(`compare-port-${index}`);
      const wanted = ports[index] ?? "";
      if ([...select.options].some((option) => option.value === wanted)) select.value = wanted;
    });
  }

  function route(focus) {
    const raw = location.hash.slice(1);
    const [first, second, third] = raw.split("/");
    let heading = null;
    if (first === "method" && methods.includes(decode(second))) {
      const method = decode(second);
      showOnly([$(`method-${method}`)]);
      heading = $(`method-${method}-title`);
    } else if (first === "compare") {
      showOnly([compare]);
      const method = second === undefined ? null : decode(second);
      const ports = (third || "").split(",").map(decode).filter(Boolean).slice(0, 3);
      if (method && ports.length) comparing(method, ports);
      heading = $("compare-title");
    } else {
      const cell = /^(.+)\/([^/@]+)\/\d+(?:@\d+)?$/.exec(decode(raw) ?? "");
      if (cell && methods.includes(cell[2])) {
        showOnly([$(`method-${cell[2]}`)]);
        return; // the page's script shows the cell on the board and moves the focus there
      }
      showOnly(views);
    }
    viewer.hidden = true;
    if (focus && heading) heading.focus();
  }

  // The board's keys (page.js) step the cell on it only while it is shown.
  window.addEventListener("keydown", (event) => {
    if (viewer.hidden) event.stopPropagation();
  }, true);
  $("compare-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const ports = [0, 1, 2].map((index) => $(`compare-port-${index}`).value).filter(Boolean);
    location.hash = `#compare/${encodeURIComponent($("compare-method").value)}/${ports.map(encodeURIComponent).join(",")}`;
  });
  window.addEventListener("hashchange", () => route(true));
  route(false);
})();
