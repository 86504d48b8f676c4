-- Headless end-to-end test of the shipped config against the real server:
--   nvim --headless --clean -l editors/nvim/test/headless_test.lua
-- Drives a copy of editors/fixtures/problems.relavium.yaml (harness.lua: the setup).
local here = vim.fs.dirname(vim.fs.abspath(debug.getinfo(1, 'S').source:sub(2)))
package.path = here .. '/?.lua;' .. package.path
local harness = require('harness')
local repo, WAIT_MS = harness.repo, harness.WAIT_MS
local find, relavium_client, wait_for, test =
  harness.find, harness.relavium_client, harness.wait_for, harness.test
-- As the README's copy-paste setup: a rule switched off must be off from the first diagnostics.
harness.setup({ relavium = { rules = { ['unreachable-node'] = 'off' } } })

-- The first non-empty diagnostics each buffer receives, by file name.
local first_diagnostics = {}
vim.api.nvim_create_autocmd('DiagnosticChanged', {
  callback = function(args)
    local name = vim.api.nvim_buf_get_name(args.buf)
    if first_diagnostics[name] == nil and #args.data.diagnostics > 0 then
      first_diagnostics[name] = args.data.diagnostics
    end
  end,
})

local workflow = require('relavium_lsp.workflow')

-- The fixture goes to a scratch directory so its sidecar is found next to it and nothing is
-- written into the repository.
local scratch = vim.fn.tempname()
vim.fn.mkdir(scratch .. '/.relavium', 'p')
local fixture = scratch .. '/problems.relavium.yaml'
for _, name in ipairs({ 'problems.relavium.yaml', 'problems.samples.json' }) do
  vim.fn.writefile(vim.fn.readfile(repo .. '/editors/fixtures/' .. name), scratch .. '/' .. name)
end

local function codes_of(diagnostics)
  local codes = {}
  for _, diagnostic in ipairs(diagnostics) do
    table.insert(codes, diagnostic.code)
  end
  table.sort(codes)
  return codes
end

-- First, so that this file starts the server: the first answer races the settings.
test('the settings hold from the very first diagnostics of a new session', function()
  local path = scratch .. '/unreachable.relavium.yaml'
  vim.fn.writefile({
    "schema_version: '1.0'",
    'workflow:',
    '  id: demo',
    '  nodes:',
    '    - { id: start, type: input }',
    '    - { id: done, type: output }',
    "    - { id: forgotten, type: transform, transform: '1' }",
    '  edges:',
    '    - { from: start, to: done }',
    '    - { from: start, to: nowhere }',
  }, path)
  vim.cmd.edit(path)
  wait_for('the first diagnostics', function()
    return first_diagnostics[path] ~= nil
  end)
  -- unknown-node shows the diagnostics arrived; unreachable-node (forgotten) is switched off
  local codes = codes_of(first_diagnostics[path])
  assert(vim.deep_equal(codes, { 'unknown-node' }), vim.inspect(codes))
end)

test('a settings change re-diagnoses the open workflows without an edit', function()
  local bufnr = vim.fn.bufnr(scratch .. '/unreachable.relavium.yaml')
  local client = assert(relavium_client(bufnr))
  -- the README's recipe
  client.settings.relavium.rules = { ['unreachable-node'] = 'hint' }
  client:notify('workspace/didChangeConfiguration', { settings = client.settings })
  wait_for('unreachable-node to appear', function()
    return vim.tbl_contains(codes_of(vim.diagnostic.get(bufnr)), 'unreachable-node')
  end)
  client.settings.relavium.rules = { ['unreachable-node'] = 'off' }
  client:notify('workspace/didChangeConfiguration', { settings = client.settings })
  wait_for('unreachable-node to go again', function()
    return not vim.tbl_contains(codes_of(vim.diagnostic.get(bufnr)), 'unreachable-node')
  end)
end)

test('every path is of the kind the server gives it (tests/fixtures/file-kinds.json)', function()
  local table_path = repo .. '/tests/fixtures/file-kinds.json'
  local cases = vim.json.decode(table.concat(vim.fn.readfile(table_path), '\n')).cases
  assert(#cases >= 20, 'the table is there')
  for _, case in ipairs(cases) do
    local path, kind = case[1], case[2] ~= vim.NIL and case[2] or nil
    assert(workflow.file_kind('/ws/' .. path) == kind, path)
  end
end)

test('workflow and agent files are YAML and attach; other YAML does not', function()
  for path, expected in pairs({
    [fixture] = true,
    [scratch .. '/.relavium/nightly.yml'] = true,
    [scratch .. '/summarizer.agent.yaml'] = true,
    [scratch .. '/ci.yaml'] = false,
  }) do
    assert(vim.filetype.match({ filename = path }) == 'yaml', path .. ' is not detected as yaml')
    assert(workflow.is_relavium_path(path) == expected, path)
  end
  vim.cmd.edit(scratch .. '/ci.yaml')
  vim.cmd.edit(fixture)
  local bufnr = vim.api.nvim_get_current_buf()
  wait_for('the client to attach', function()
    return relavium_client(bufnr) ~= nil
  end)
  assert(relavium_client(vim.fn.bufnr(scratch .. '/ci.yaml')) == nil, 'attached to ci.yaml')
  for _, command in ipairs({
    'RelaviumRun',
    'RelaviumShowResult',
    'RelaviumCreateSampleScope',
    'RelaviumDryRun',
    'RelaviumGraph',
  }) do
    assert(vim.api.nvim_buf_get_commands(bufnr, {})[command], command .. ' is not buffer-local')
  end
end)

--- Runs :RelaviumRun with the cursor at the first `needle` and waits for the kept result.
local function run_at(bufnr, needle)
  local row, col = find(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), needle)
  vim.api.nvim_win_set_cursor(0, { row + 1, col })
  vim.b[bufnr].relavium_last_run = nil
  vim.cmd('RelaviumRun')
  wait_for('the run at ' .. needle, function()
    return vim.b[bufnr].relavium_last_run ~= nil
  end)
  return vim.b[bufnr].relavium_last_run
end

test(':RelaviumRun sends the cursor and the server finds its node, block or flow', function()
  local bufnr = vim.fn.bufnr(fixture)
  vim.api.nvim_set_current_buf(bufnr)
  local cases = {
    { "transform: '({ severity", 'classify' },
    -- after "🚨é" on the line: the column goes in the client's offset encoding, not in bytes
    { 'run.outputs["report"]', 'route' },
    { 'target_node: report', 'route' },
    { 'default: report', 'route' },
    { "'({ count", 'report' },
    -- in no node with an expression: refused with those that have one
    { '- { id: start', nil },
    { '- { id: done', nil },
    { 'schema_version', nil },
    { 'edges:', nil },
  }
  for _, case in ipairs(cases) do
    local last = run_at(bufnr, case[1])
    if case[2] then
      local message = ('%s: %s'):format(case[1], vim.inspect(last))
      assert(last.node == case[2] and last.result.node == case[2], message)
    else
      local runnable = last.result.error and last.result.error.runnable
      local message = ('%s: %s'):format(case[1], vim.inspect(last))
      assert(vim.deep_equal(runnable, { 'classify', 'route', 'report' }), message)
      assert(last.node:match('^at line %d+$'), message)
    end
  end
end)

test("run results are described with the author's own error", function()
  local ok = workflow.describe_result('score', { ok = true, value = vim.NIL, number = '-Infinity' })
  assert(vim.deep_equal(ok, { 'run score', 'value: -Infinity' }), vim.inspect(ok))
  local failed = workflow.describe_result('route', {
    ok = false,
    scope = { source = 'synthesized', path = vim.NIL, values = { inputs = {} }, notes = { 'n1' } },
    error = {
      code = 'sandbox_error',
      reason = 'timeout',
      retryable = true,
      message = 'ran out of time',
      detail = 'private',
    },
  })
  local want = {
    'run route',
    'scope: synthesized',
    'note: n1',
    'values: {"inputs":[]}',
    'error: sandbox_error timeout (retryable): ran out of time',
  }
  assert(vim.deep_equal(failed, want), vim.inspect(failed)) -- a detail that is no record: not shown
  local thrown = workflow.describe_result('route', {
    ok = false,
    error = {
      code = 'sandbox_error',
      reason = 'runtime',
      message = 'the expression threw an error',
      detail = {
        class = 'TypeError',
        message = "cannot read property 'risk' of null",
        range = { start = { line = 13, character = 86 }, ['end'] = { line = 13, character = 90 } },
      },
    },
  })
  assert(
    thrown[#thrown] == "TypeError: cannot read property 'risk' of null (line 14, column 87)",
    vim.inspect(thrown)
  )
  assert(workflow.describe_result('x', nil)[1]:match('no result'))
  -- the server's text keeps nulls and key order, which decoding into a Lua table loses
  local kept = workflow.describe_result('t', {
    ok = true,
    value = { a = 1 },
    text = '{"z": null, "a": 1}',
    scope = { text = '{"inputs": {"key": null}}', values = { inputs = {} } },
  })
  assert(kept[#kept] == 'value: {"z": null, "a": 1}', vim.inspect(kept))
  assert(vim.tbl_contains(kept, 'values: {"inputs": {"key": null}}'), vim.inspect(kept))
end)

test('each deliberate problem is reported with its rule id and exact range', function()
  local bufnr = vim.fn.bufnr(fixture)
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  wait_for('diagnostics', function()
    return #vim.diagnostic.get(bufnr) >= 3
  end)
  local got = {}
  for _, diagnostic in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(got, {
      diagnostic.code,
      diagnostic.severity,
      diagnostic.lnum,
      diagnostic.col,
      diagnostic.end_lnum,
      diagnostic.end_col,
    })
  end
  table.sort(got, function(a, b)
    return a[3] < b[3] or (a[3] == b[3] and a[4] < b[4])
  end)
  local function expected(code, needle, after)
    local row, col = find(lines, after or needle)
    local at = lines[row + 1]:find(needle, col + 1, true) - 1
    return { code, vim.diagnostic.severity.ERROR, row, at, row, at + #needle }
  end
  local want = {
    expected('unordered-output-read', 'run.outputs["report"]'),
    expected('js-syntax', '*', '1 +* 2'),
    expected('unknown-node', 'nowhere'),
  }
  local message = 'diagnostics:\n' .. vim.inspect(got) .. '\nexpected:\n' .. vim.inspect(want)
  assert(vim.deep_equal(got, want), message)
end)

test('completion inside run.outputs[" offers only the ancestors of the node', function()
  local bufnr = vim.fn.bufnr(fixture)
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local row, col = find(lines, 'run.outputs["classify"]')
  -- the line has an emoji and an accent before the read: convert bytes to the negotiated units
  local encoding = assert(relavium_client(bufnr)).offset_encoding
  local character = vim.str_utfindex(lines[row + 1], encoding, col + #'run.outputs["')
  local responses = vim.lsp.buf_request_sync(bufnr, 'textDocument/completion', {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = row, character = character },
  }, WAIT_MS)
  local response = assert(responses and next(responses) and select(2, next(responses)), 'no answer')
  assert(response.err == nil, vim.inspect(response.err))
  local items = response.result.items or response.result
  local labels = {}
  for _, item in ipairs(items) do
    table.insert(labels, item.label)
  end
  table.sort(labels)
  -- route's ancestors: start -> classify -> route; report and done come after it
  assert(vim.deep_equal(labels, { 'classify', 'start' }), vim.inspect(labels))
end)

test(':RelaviumRun runs the node under the cursor with the sidecar scope', function()
  local bufnr = vim.fn.bufnr(fixture)
  vim.api.nvim_set_current_buf(bufnr)
  local last = run_at(bufnr, "transform: '({ severity")
  assert(last.node == 'classify', vim.inspect(last))
  assert(last.result.ok == true, vim.inspect(last.result))
  -- problems.samples.json holds the ticket text; the transform returns its length
  assert(vim.deep_equal(last.result.value, { severity = #'The export button does nothing' }))
  assert(last.result.scope.source == 'sidecar', vim.inspect(last.result.scope))
  assert(last.result.scope.path == scratch .. '/problems.samples.json', last.result.scope.path)

  vim.cmd('RelaviumShowResult')
  local shown = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  vim.cmd('close')
  assert(shown[1] == 'run classify', vim.inspect(shown))
  assert(shown[2] == 'scope: sidecar ' .. scratch .. '/problems.samples.json', vim.inspect(shown))
  assert(shown[#shown] == 'value: {"severity": 30}', vim.inspect(shown))
end)

test('a code lens run goes through the config and is kept for :RelaviumShowResult', function()
  local bufnr = vim.fn.bufnr(fixture)
  local client = assert(relavium_client(bufnr))
  local response = client:request_sync('textDocument/codeLens', {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
  }, WAIT_MS, bufnr)
  assert(response and response.err == nil, vim.inspect(response))
  local lens
  for _, each in ipairs(response.result) do
    if each.command.arguments[1].node == 'route' then
      lens = each
    end
  end
  local lenses = vim.inspect(response.result)
  assert(lens and lens.command.command == 'relavium.runWithSampleScope', lenses)
  vim.b[bufnr].relavium_last_run = nil
  client:exec_cmd(lens.command, { bufnr = bufnr })
  wait_for('the code lens run', function()
    return vim.b[bufnr].relavium_last_run ~= nil
  end)
  local result = vim.b[bufnr].relavium_last_run.result
  -- route reads run.outputs["report"], which its narrowed scope does not hold: .count throws
  assert(result.ok == false and result.error.reason == 'runtime', vim.inspect(result))
  vim.api.nvim_set_current_buf(bufnr)
  vim.cmd('RelaviumShowResult')
  local shown = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  vim.cmd('close')
  local want = "TypeError: cannot read property 'count' of undefined (line 14, column 87)"
  assert(shown[#shown] == want, vim.inspect(shown))
end)

test(':RelaviumDryRun runs the workflow and shows values as inlay hints', function()
  local bufnr = vim.fn.bufnr(fixture)
  vim.api.nvim_set_current_buf(bufnr)
  vim.b[bufnr].relavium_last_dry_run = nil
  vim.cmd('RelaviumDryRun')
  wait_for('the dry run', function()
    return vim.b[bufnr].relavium_last_dry_run ~= nil
  end)
  local result = vim.b[bufnr].relavium_last_dry_run
  assert(type(result.nodes) == 'table' and #result.nodes > 0, vim.inspect(result))
  local classify
  for _, node in ipairs(result.nodes) do
    if node.id == 'classify' then
      classify = node
    end
  end
  assert(classify and classify.status == 'ran', vim.inspect(result))
  assert(vim.deep_equal(classify.value, { severity = #'The export button does nothing' }))
  assert(vim.lsp.inlay_hint.is_enabled({ bufnr = bufnr }), 'inlay hints are not enabled')
  local row = find(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), 'id: classify')
  local hints
  wait_for('an inlay hint on classify', function()
    hints = vim.lsp.inlay_hint.get({
      bufnr = bufnr,
      range = { start = { line = row, character = 0 }, ['end'] = { line = row + 1, character = 0 } },
    })
    return #hints > 0
  end)
  local label = hints[1].inlay_hint.label
  assert(label == '= {"severity": 30}', vim.inspect(hints))
end)

test('code lenses show after attach and follow edits, with no manual refresh', function()
  local bufnr = vim.fn.bufnr(fixture)
  vim.cmd.buffer(bufnr)
  local function lens_nodes()
    local nodes = {}
    for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
      if lens.command and lens.command.command == 'relavium.runWithSampleScope' then
        table.insert(nodes, lens.command.arguments[1].node)
      end
    end
    table.sort(nodes)
    return nodes
  end
  wait_for('code lenses', function()
    return #lens_nodes() > 0
  end)
  local before = lens_nodes()
  assert(vim.tbl_contains(before, 'route'), vim.inspect(before))
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local row = find(lines, '- { id: done')
  local indent = lines[row + 1]:match('^%s*')
  vim.api.nvim_buf_set_lines(bufnr, row, row, false, {
    indent .. "- { id: added, type: transform, transform: '1' }",
  })
  vim.api.nvim_exec_autocmds('TextChanged', { buffer = bufnr })
  wait_for('a lens for the added node', function()
    return vim.tbl_contains(lens_nodes(), 'added')
  end)
  vim.api.nvim_buf_set_lines(bufnr, row, row + 1, false, {})
  vim.api.nvim_exec_autocmds('TextChanged', { buffer = bufnr })
end)

test(':RelaviumCreateSampleScope writes a sidecar skeleton next to the workflow', function()
  local fresh = scratch .. '/.relavium/fresh.yml'
  vim.fn.writefile(vim.fn.readfile(fixture), fresh)
  vim.cmd.edit(fresh)
  local bufnr = vim.api.nvim_get_current_buf()
  wait_for('the client to attach to .relavium/fresh.yml', function()
    return relavium_client(bufnr) ~= nil
  end)
  local sidecar = scratch .. '/.relavium/fresh.samples.json'
  assert(vim.fn.filereadable(sidecar) == 0, 'sidecar exists before the command')
  vim.api.nvim_buf_call(bufnr, function()
    vim.cmd('RelaviumCreateSampleScope')
  end)
  wait_for('the sidecar', function()
    return vim.fn.filereadable(sidecar) == 1
  end)
  local skeleton = vim.json.decode(table.concat(vim.fn.readfile(sidecar), '\n'))
  assert(type(skeleton.inputs) == 'table' and skeleton.inputs.ticket ~= nil, vim.inspect(skeleton))
end)

--- Runs :RelaviumGraph (with `bang`) in `bufnr` with vim.ui.open stubbed (it would start a
--- browser); the page it opened and that page's text.
local function graph_page(bufnr, bang)
  local opened = {}
  local ui_open = vim.ui.open
  vim.ui.open = function(path)
    table.insert(opened, path)
    return nil, nil
  end
  vim.b[bufnr].relavium_last_graph = nil
  local ok, err = pcall(function()
    -- in that buffer: a window/showDocument may still bring another forward
    vim.api.nvim_buf_call(bufnr, function()
      vim.cmd(bang and 'RelaviumGraph!' or 'RelaviumGraph')
    end)
    wait_for(':RelaviumGraph', function()
      return #opened > 0
    end)
  end)
  vim.ui.open = ui_open
  assert(ok, err)
  assert(#opened == 1, vim.inspect(opened))
  return opened[1], table.concat(vim.fn.readfile(opened[1], 'b'), '\n')
end

test(':RelaviumGraph writes the graph page under the cache folder and opens it', function()
  local bufnr = vim.fn.bufnr(fixture)
  local page, html = graph_page(bufnr, false)
  assert(vim.startswith(page, vim.fn.stdpath('cache') .. '/relavium_lsp/graphs/'), page)
  assert(page == vim.b[bufnr].relavium_last_graph, page)
  assert(vim.startswith(vim.fs.basename(page), 'problems.relavium-'), page)
  assert(html:find('<html', 1, true) and html:find('Content-Security-Policy', 1, true), page)
  local ids = {}
  for _, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    table.insert(ids, line:match('^%s*%- { id: ([%w_]+)') or line:match('^%s*%- id: ([%w_]+)'))
  end
  assert(#ids == 5, vim.inspect(ids))
  for _, id in ipairs(ids) do
    assert(html:find('"' .. id .. '"', 1, true), id .. ' is not in ' .. page)
  end
  -- with a dry run, nodes carry their statuses: classify ran
  local _, with_run = graph_page(bufnr, true)
  assert(not html:find('"state"', 1, true), 'statuses without a dry run')
  assert(with_run:find('"state": *"ran"'), 'no dry-run status in ' .. page)
  vim.fn.delete(page)
end)

harness.run(scratch)
