"use strict";
// The gallery's two views: the index of the languages (no address, or #languages), and one method's
// code in the languages a reader picks, side by side (#compare/METHOD/PORT,PORT,...), whose address
// follows the picker so that it can be shared. A cell's address (#port/method/n@k) is the report
// page's: its script (page.js) opens the cell on the same board, and the gallery shows that method
// beside it. Each card waits in a template until it is picked: a catalogue of many ports is never
// one long page. Text from ports only ever reaches the page as data.
(() => {
  const $ = (id) => document.getElementById(id);
  const languages = $("languages");
  const compare = $("compare");
  const viewer = $("viewer");
  const form = $("compare-form");
  const methodChoices = [...form.querySelectorAll('input[name="method"]')];
  const portChoices = [...form.querySelectorAll('input[name="port"]')];
  const methods = methodChoices.map((input) => input.value);
  const names = portChoices.map((input) => input.value);
  const cards = new Map(methods.map((method) => [method, new Map()]));
  for (const template of document.querySelectorAll("template[data-method]")) cards.get(template.dataset.method)?.set(template.dataset.port, template);
  const title = document.title;
  const wide = matchMedia("(min-width: 40rem)");
  const state = { view: null, method: methods[0], ports: [], key: null };
  const decode = (piece) => {
    try {
      return decodeURIComponent(piece);
    } catch {
      return null;
    }
  };
  // The board's script (page.js) writes the address of the move it shows a moment after showing it:
  // a board hidden within that moment would write it over the view's. Its writes go through only
  // while the board shows; the gallery's own go through the browser's.
  const replaceAddress = history.replaceState.bind(history);
  history.replaceState = (...given) => {
    if (!viewer.hidden) replaceAddress(...given);
  };
  const addressOf = (method, ports) => `#compare/${encodeURIComponent(method)}/${ports.map(encodeURIComponent).join(",")}`;

  function showOnly(shown) {
    state.view = shown;
    for (const view of [languages, compare]) view.classList.toggle("away", view !== shown);
  }

  // A replay out of sight stops: it would play on for no one.
  function hideBoard() {
    if ($("play").textContent.startsWith("⏸")) $("play").click();
    viewer.hidden = true;
  }

  function render(method, ports) {
    const key = JSON.stringify([method, ports]);
    state.method = method;
    state.ports = ports;
    for (const input of methodChoices) input.checked = input.value === method;
    for (const input of portChoices) input.checked = ports.includes(input.value);
    for (const puzzle of compare.querySelectorAll(".puzzle")) puzzle.hidden = puzzle.dataset.method !== method;
    for (const link of document.querySelectorAll("a[data-method-link]")) link.href = addressOf(link.dataset.methodLink, ports);
    $("picked").textContent = ports.length ? `${ports.length} of ${names.length} chosen: ${ports.join(", ")}` : "none chosen";
    if (key === state.key) return; // the same cards stay, with what is open in them and where the focus is
    state.key = key;
    const found = ports.map((port) => cards.get(method).get(port));
    $("compare-view").replaceChildren(...found.filter(Boolean).map((template) => template.content.cloneNode(true)));
    const missing = ports.filter((_, index) => !found[index]);
    $("compare-status").textContent = [
      ports.length > missing.length ? `${method}: ${ports.filter((_, index) => found[index]).join(", ")}, side by side.` : "",
      missing.length ? `No port named ${missing.join(", ")} here.` : "",
      ports.length ? "" : `Choose languages to see their ${method} code side by side.`,
    ].filter(Boolean).join(" ");
    document.title = ports.length ? `${method}: ${ports.join(", ")} · ${title}` : title;
  }

  // A change of the picker: the view follows at once, and the address with it, in place, so that
  // the back button leaves the view rather than undoing each tick.
  function choose(method, ports) {
    replaceAddress(null, "", addressOf(method, ports));
    hideBoard();
    render(method, ports);
  }

  // On entering the view, the picker is folded on a narrow screen when languages are chosen already,
  // so that their code comes first; after that it stays as the reader leaves it.
  function comparing(method, ports, focus) {
    if (state.view !== compare) $("picker").open = !ports.length || wide.matches;
    showOnly(compare);
    render(method, ports);
    if (focus) $("compare-title").focus();
  }

  function route(focus) {
    const raw = location.hash.slice(1);
    const [first, second, third] = raw.split("/");
    const method = decode(second ?? "");
    const cell = /^(.+)\/([^/@]+)\/\d+(?:@\d+)?$/.exec(decode(raw) ?? "");
    if (first === "compare") {
      const ports = [...new Set((third || "").split(",").map(decode).filter(Boolean))];
      comparing(methods.includes(method) ? method : state.method, ports, focus);
    } else if (first === "method" && methods.includes(method)) {
      // An older address, of one method in every port: that method, in the languages chosen so far.
      replaceAddress(null, "", addressOf(method, state.ports));
      comparing(method, state.ports, focus);
    } else if (cell && methods.includes(cell[2]) && !viewer.hidden) {
      const ports = state.ports.includes(cell[1]) ? state.ports : [...state.ports, cell[1]];
      comparing(cell[2], ports, false); // the page's script shows the cell on the board and moves the focus there
      return;
    } else {
      showOnly(languages);
      if (focus) $("languages-title").focus();
    }
    hideBoard();
  }

  // The board's keys (page.js) step the cell on it only while it is shown.
  window.addEventListener("keydown", (event) => {
    if (viewer.hidden) event.stopPropagation();
  }, true);
  form.addEventListener("submit", (event) => event.preventDefault());
  form.addEventListener("change", (event) => {
    const input = event.target;
    if (input.name === "method") choose(input.value, state.ports);
    else if (input.name === "port") choose(state.method, input.checked ? [...state.ports, input.value] : state.ports.filter((port) => port !== input.value));
  });
  $("compare-clear").addEventListener("click", () => choose(state.method, []));
  // The skip link moves the focus to the content and leaves the view, and its address, as they are.
  document.querySelector("a.skip").addEventListener("click", (event) => {
    event.preventDefault();
    $("views").focus();
  });
  window.addEventListener("hashchange", () => route(true));
  route(false);
})();
