-- Headless end-to-end test of the cross-file agent features in the shipped config, against the
-- real server:
--   nvim --headless --clean -l editors/nvim/test/cross_file_test.lua
-- A project in the engine's layout (an agent in .relavium/agents/, two workflows naming it, one
-- never opened): hover on an agent_ref shows the agent from its file, go to definition opens that
-- file at its id, and a rename changes the id and every agent_ref, in the open buffers and the
-- workflow never opened. The file keeps its name: Neovim 0.11 takes no `documentChanges`, which
-- a resource rename needs (LSP 3.17), so the server sends none.
local setup = dofile(vim.fs.dirname(vim.fs.abspath(debug.getinfo(1, 'S').source:sub(2)))
  .. '/setup.lua')
local WAIT_MS = setup.WAIT_MS

local project = vim.fn.tempname()
local agent_path = project .. '/.relavium/agents/reviewer.agent.yaml'
local flow_path = project .. '/.relavium/workflows/flow.relavium.yaml'
local closed_path = project .. '/.relavium/workflows/closed.relavium.yaml'
vim.fn.mkdir(project .. '/.relavium/agents', 'p')
vim.fn.mkdir(project .. '/.relavium/workflows', 'p')
vim.fn.writefile({
  'id: reviewer',
  'model: claude-sonnet-4-5',
  'provider: anthropic',
  'system_prompt: You review drafts.',
}, agent_path)
local function workflow(agent)
  return {
    "schema_version: '1.0'",
    'workflow:',
    '  id: demo',
    '  nodes:',
    '    - { id: start, type: input }',
    '    - { id: review, type: agent, agent_ref: ' .. agent .. ' }',
    '  edges:',
    '    - { from: start, to: review }',
  }
end
vim.fn.writefile(workflow('reviewer'), flow_path)
vim.fn.writefile(workflow('reviewer'), closed_path)

local function wait_for(what, predicate)
  if not vim.wait(WAIT_MS, predicate, 50) then
    error('timed out waiting for ' .. what)
  end
end

-- the cursor on `agent_ref: reviewer` of the workflow's buffer
local function on_agent_ref(bufnr)
  vim.api.nvim_set_current_buf(bufnr)
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  for index, line in ipairs(lines) do
    local col = line:find('agent_ref: ', 1, true)
    if col then
      vim.api.nvim_win_set_cursor(0, { index, col - 1 + #'agent_ref: ' + 2 })
      return
    end
  end
  error('no agent_ref in the buffer')
end

local function read(path)
  return table.concat(vim.fn.readfile(path), '\n')
end

local checks = {}
local function check(name, body)
  table.insert(checks, { name = name, body = body })
end

local flow
check('hover on an agent_ref shows the agent from its file', function()
  vim.cmd.edit(flow_path)
  flow = vim.api.nvim_get_current_buf()
  wait_for('the client to attach', function()
    return #vim.lsp.get_clients({ bufnr = flow, name = 'relavium_lsp' }) > 0
  end)
  on_agent_ref(flow)
  local params = vim.lsp.util.make_position_params(0, 'utf-16')
  local answers = vim.lsp.buf_request_sync(flow, 'textDocument/hover', params, WAIT_MS)
  local _, answer = next(answers or {})
  local shown = answer and answer.result and answer.result.contents.value or ''
  assert(shown:find('**agent `reviewer`**', 1, true), shown)
  assert(shown:find('model `claude-sonnet-4-5`', 1, true), shown)
  assert(shown:find(agent_path, 1, true), shown)
end)

check('go to definition opens the agent file at its id', function()
  on_agent_ref(flow)
  vim.lsp.buf.definition()
  wait_for('the agent file to open', function()
    return vim.api.nvim_buf_get_name(0) == agent_path
  end)
  local row, col = unpack(vim.api.nvim_win_get_cursor(0))
  assert(row == 1 and col == #'id: ', vim.inspect({ row, col }))
end)

check('rename across files: the id and every agent_ref', function()
  on_agent_ref(flow)
  vim.lsp.buf.rename('critic')
  wait_for('the edit to be made', function()
    return vim.api.nvim_buf_get_lines(flow, 5, 6, false)[1]:find('agent_ref: critic', 1, true)
  end)
  vim.cmd('silent wall')
  assert(read(agent_path):find('^id: critic\n'), read(agent_path))
  assert(read(flow_path):find('agent_ref: critic', 1, true), read(flow_path))
  -- a workflow that was never open in the editor
  assert(read(closed_path):find('agent_ref: critic', 1, true), read(closed_path))
end)

-- io.stdout, not print() (see headless_test.lua)
local failed = 0
for _, case in ipairs(checks) do
  local ok, err = xpcall(case.body, debug.traceback)
  io.stdout:write((ok and 'ok - ' or 'not ok - ') .. case.name .. (ok and '' or '\n' .. err), '\n')
  failed = failed + (ok and 0 or 1)
end
for _, client in ipairs(vim.lsp.get_clients()) do
  client:stop(true)
end
vim.fn.delete(project, 'rf')
io.stdout:write(('%d passed, %d failed'):format(#checks - failed, failed), '\n')
os.exit(failed == 0 and 0 or 1)
