// The replay page: the list of records, then one record step by step from a chosen point of view.
"use strict";

let record = null; // name of the record shown
let last = 0; // its number of decisions
let moves = [];

async function showList() {
  const data = await api("GET", "/api/records");
  document.getElementById("shelf").textContent = data.path
    ? "Records in " + data.path + "." : "No --records given: nothing to show.";
  const body = document.querySelector("#records tbody");
  body.replaceChildren();
  for (const row of data.records) {
    const tr = el("tr");
    const link = el("a", row.name, { href: "/replay?record=" + encodeURIComponent(row.name) });
    const cell = el("td");
    cell.appendChild(link);
    tr.appendChild(cell);
    if (row.error) {
      tr.appendChild(el("td", "cannot be read: " + row.error, { colspan: "4" }));
    } else {
      tr.appendChild(el("td", row.game));
      tr.appendChild(el("td", row.agents.join(", ")));
      tr.appendChild(el("td", String(row.decisions)));
      tr.appendChild(el("td", row.summary));
    }
    body.appendChild(tr);
  }
}

async function showStep(step) {
  const view = document.getElementById("view").value;
  const query = "?step=" + step + "&seat=" + encodeURIComponent(view || "all");
  try {
    const data = await api("GET", "/api/records/" + encodeURIComponent(record) + query);
    showError("");
    draw(data);
  } catch (err) {
    showError(err.message);
  }
}

function draw(data) {
  last = data.moves.length;
  moves = data.moves;
  document.getElementById("record-name").textContent = data.name;
  document.getElementById("header").textContent = data.header;
  const slider = document.getElementById("slider");
  slider.max = String(last);
  slider.value = String(data.step);
  document.getElementById("step-label").textContent = "step " + data.step + " of " + last;
  const view = document.getElementById("view");
  if (view.options.length !== data.players + 1) {
    view.replaceChildren(el("option", "everyone (all hands shown)", { value: "all" }));
    data.agents.forEach((agent, q) => {
      view.appendChild(el("option", "seat " + q + " (" + agent + ")", { value: String(q) }));
    });
    view.value = data.seat === null ? "all" : String(data.seat);
  }
  const move = data.step === 0 ? "The deal." : "Step " + data.step + ": seat " +
    moves[data.step - 1].seat + " (" + moves[data.step - 1].agent + "): " + moves[data.step - 1].move;
  document.getElementById("move").textContent = move;
  // the SVG is built by the server for the chosen point of view, its text escaped there
  document.getElementById("table").innerHTML = data.svg;
  const result = document.getElementById("result");
  result.textContent = data.step === last ? data.result.summary : "";
  result.hidden = data.step !== last;
  document.body.dataset.step = String(data.step);
}

function current() {
  return Number(document.getElementById("slider").value);
}

function go(step) {
  showStep(Math.min(Math.max(step, 0), last));
}

async function init() {
  record = new URLSearchParams(location.search).get("record");
  if (!record) {
    try {
      await showList();
    } catch (err) {
      showError(err.message);
    }
    document.body.dataset.ready = "1";
    return;
  }
  document.getElementById("list-view").hidden = true;
  document.getElementById("record-view").hidden = false;
  document.getElementById("first").addEventListener("click", () => go(0));
  document.getElementById("prev").addEventListener("click", () => go(current() - 1));
  document.getElementById("next").addEventListener("click", () => go(current() + 1));
  document.getElementById("last").addEventListener("click", () => go(last));
  document.getElementById("slider").addEventListener("change", () => go(current()));
  document.getElementById("view").addEventListener("change", () => go(current()));
  document.addEventListener("keydown", (event) => {
    if (event.key === "ArrowLeft") go(current() - 1);
    if (event.key === "ArrowRight") go(current() + 1);
  });
  const seat = new URLSearchParams(location.search).get("seat");
  if (seat !== null) {
    document.getElementById("view").replaceChildren(el("option", "", { value: seat }));
  }
  await showStep(Number(new URLSearchParams(location.search).get("step") || 0));
  document.body.dataset.ready = "1";
}

init();
