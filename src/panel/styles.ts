/**
 * The control panel's styles, inside its shadow root: nothing leaks into the app and, with
 * `:host { all: initial }`, the app's inherited styles do not reach in.
 */
export const PANEL_CSS = `
:host { all: initial; }
.panel {
  --fg: #1c2024; --muted: #5b6470; --bg: #ffffff; --soft: #f1f3f5; --line: #d5d9de; --accent: #1a5fb4;
  --ok: #1e7a34; --warn: #9a5b00; --bad: #b3261e; --chaos: #7b2cbf;
  font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg);
  box-sizing: border-box; display: grid; grid-template-columns: minmax(0, 1fr) 360px; gap: 12px; padding: 12px;
}
.panel *, .panel *::before, .panel *::after { box-sizing: inherit; }
header.bar { grid-column: 1 / -1; display: flex; flex-wrap: wrap; align-items: center; gap: 12px; }
header.bar h1 { font-size: 18px; margin: 0 8px 0 0; }
.source { color: var(--muted); }
.connection { padding: 2px 8px; border-radius: 10px; background: var(--soft); font-size: 12px; }
.connection.live { color: var(--ok); }
.connection.lost { color: var(--bad); }
section { border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; background: var(--bg); min-width: 0; }
section h2 { font-size: 15px; margin: 0 0 8px; }
.side, .main { display: flex; flex-direction: column; gap: 12px; min-width: 0; }
.side select, .side input[type=text] { width: 100%; }
.side .field { display: flex; }
.filters { display: flex; flex-wrap: wrap; gap: 8px; margin-bottom: 8px; align-items: end; }
label { font-size: 12px; color: var(--muted); }
.field { display: inline-flex; flex-direction: column; gap: 2px; }
input, select, button { font: inherit; color: var(--fg); }
input, select { border: 1px solid var(--line); border-radius: 6px; padding: 4px 6px; background: var(--bg); min-width: 0; }
select { max-width: 100%; }
button { border: 1px solid var(--line); border-radius: 6px; padding: 4px 10px; background: var(--soft); cursor: pointer; }
button:hover { border-color: var(--accent); }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.buttons { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 6px; }
.table-wrap { overflow: auto; max-height: 55vh; border: 1px solid var(--line); border-radius: 6px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--line); white-space: nowrap; }
th { position: sticky; top: 0; background: var(--soft); font-weight: 600; }
td.path { white-space: normal; overflow-wrap: normal; word-break: normal; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tbody tr.row { cursor: pointer; }
tbody tr.row:focus-visible { outline-offset: -3px; }
tbody tr.row:hover { background: #eef4fc; }
tbody tr.row[aria-selected="true"] { background: #dbe9fb; }
.s2 { color: var(--ok); } .s4 { color: var(--warn); } .s5 { color: var(--bad); } .s0 { color: var(--bad); }
.banned { color: var(--bad); font-weight: 600; }
.chaos { color: var(--chaos); font-weight: 600; }
.muted { color: var(--muted); }
.clock { font: 600 16px/1.3 ui-monospace, SFMono-Regular, Menlo, monospace; }
.details { margin-top: 10px; }
.details th { width: 240px; background: none; position: static; font-weight: 600; }
.details h3 { font-size: 14px; margin: 8px 0 4px; }
.details pre { background: var(--soft); border-radius: 6px; padding: 8px; max-height: 240px; overflow: auto; white-space: pre-wrap; word-break: break-all; font-size: 12px; margin: 0; }
.tag { display: inline-block; padding: 0 6px; border-radius: 8px; background: #fdecc8; color: #6b4500; font-size: 12px; margin-left: 6px; }
.empty { margin: 6px 0 0; color: var(--muted); }
.empty code { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; color: var(--fg); background: var(--soft); padding: 1px 4px; border-radius: 4px; word-break: break-all; user-select: all; }
.strip { position: relative; height: 44px; margin: 4px 0 6px; background: var(--soft); border: 1px solid var(--line); border-radius: 6px; overflow: hidden; }
.strip .stages { position: absolute; inset: 0; }
.strip .stage { position: absolute; top: 0; bottom: 0; display: flex; flex-direction: column; justify-content: center; padding: 0 6px; border-left: 1px solid var(--line); border-right: 1px solid var(--line); background: #e6eef8; font-size: 12px; line-height: 1.3; overflow: hidden; white-space: nowrap; }
.strip .stage span { overflow: hidden; text-overflow: ellipsis; }
.strip .stage.current { background: #dbe9fb; box-shadow: inset 0 0 0 2px var(--accent); font-weight: 600; }
.strip .stage-count { color: var(--muted); font-variant-numeric: tabular-nums; }
.strip .now { position: absolute; top: 0; bottom: 0; width: 2px; margin-left: -1px; background: var(--bad); pointer-events: none; }
.timeline-now, .verdict { margin: 2px 0; }
.verdict.ok { color: var(--ok); }
.verdict.bad { color: var(--bad); }
.status-line { grid-column: 1 / -1; min-height: 1.4em; margin: 0; color: var(--muted); }
.status-line.error { color: var(--bad); }
@media (max-width: 1000px) { .panel { grid-template-columns: minmax(0, 1fr); } }
`
