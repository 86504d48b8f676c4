// The workflow graph view's page: draws what the extension sends with the one renderer of
// `relavium-lsp graph --format html` (RelaviumGraph, editors/graph/README.md) and tells the
// extension which node was clicked. Messages: src/graphViewModel.ts (ToPage, FromPage).
(function () {
  const host = acquireVsCodeApi();
  const container = document.getElementById('relavium-graph');
  const problem = document.getElementById('relavium-problem');
  let view;
  let statuses = {};
  let highlighted = null;

  function showProblem(message) {
    problem.hidden = message === null;
    problem.textContent = message === null ? '' : message;
  }

  function draw(graph) {
    if (view === undefined) {
      view = RelaviumGraph.render(container, graph, {
        onNodeClick: (id) => host.postMessage({ type: 'reveal', id }),
      });
      view.highlight(highlighted);
    } else {
      view.update(graph); // keeps pan, zoom and the highlighted node
    }
    // a new graph carries no statuses: the last dry run's stay on the nodes it ran
    view.setStatuses(statuses);
    // the layout's and drawing's own time, for whoever measures the view (the editor tests)
    container.dataset.renderMs = String(Math.round(view.renderMs));
  }

  window.addEventListener('message', (event) => {
    const message = event.data;
    try {
      if (message.type === 'graph') {
        draw(message.graph);
        showProblem(null);
      } else if (message.type === 'statuses') {
        statuses = message.statuses;
        if (view !== undefined) view.setStatuses(statuses);
      } else if (message.type === 'highlight') {
        highlighted = message.id;
        if (view !== undefined) view.highlight(highlighted);
      } else if (message.type === 'problem') {
        showProblem(message.message);
      }
    } catch (error) {
      showProblem(`The graph could not be drawn: ${error instanceof Error ? error.message : error}`);
    }
  });
  host.postMessage({ type: 'ready' });
})();
