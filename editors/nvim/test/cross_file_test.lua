-- Headless end-to-end test of the cross-file agent features in the shipped config, against the
-- real server:
--   nvim --headless --clean -l editors/nvim/test/cross_file_test.lua
-- A project in the engine's layout (an agent in .relavium/agents/, two workflows naming it, one
-- never opened): hover on an agent_ref shows the agent from its file, go to definition opens that
-- file at its id, and a rename changes the id and every agent_ref, in the open buffers and the
-- workflow never opened. The file keeps its name: Neovim 0.11 takes no `documentChanges`, which
-- a resource rename needs (LSP 3.17), so the server sends none.
local here = vim.fs.dirname(vim.fs.abspath(debug.getinfo(1, 'S').source:sub(2)))
package.path = here .. '/?.lua;' .. package.path
local harness = require('harness')
local WAIT_MS, wait_for, test = harness.WAIT_MS, harness.wait_for, harness.test
harness.setup({})

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

local flow
test('hover on an agent_ref shows the agent from its file', function()
  vim.cmd.edit(flow_path)
  flow = vim.api.nvim_get_current_buf()
  wait_for('the client to attach', function()
    return harness.relavium_client(flow) ~= nil
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

test('go to definition opens the agent file at its id', function()
  on_agent_ref(flow)
  vim.lsp.buf.definition()
  wait_for('the agent file to open', function()
    return vim.api.nvim_buf_get_name(0) == agent_path
  end)
  local row, col = unpack(vim.api.nvim_win_get_cursor(0))
  assert(row == 1 and col == #'id: ', vim.inspect({ row, col }))
end)

test('rename across files: the id and every agent_ref', function()
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

harness.run(project)
