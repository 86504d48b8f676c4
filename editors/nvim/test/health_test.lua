-- Headless test of what issue 25 found rough in Neovim, against the real server:
--   nvim --headless --clean -l editors/nvim/test/health_test.lua
-- `rules = {}` (a JSON array on the wire), the exclusion reason in :LspLog at the default log
-- level, and :checkhealth relavium_lsp, in a project whose pyproject.toml excludes drafts/.
local here = vim.fs.dirname(vim.fs.abspath(debug.getinfo(1, 'S').source:sub(2)))
package.path = here .. '/?.lua;' .. package.path
local harness = require('harness')
local relavium_client, wait_for, test = harness.relavium_client, harness.wait_for, harness.test
-- Lua's empty table: vim.json encodes it as [], where the server takes a mapping.
harness.setup({ relavium = { rules = {} } })

local scratch = vim.fn.tempname()
vim.fn.mkdir(scratch .. '/.relavium', 'p')
vim.fn.mkdir(scratch .. '/drafts', 'p')
local pyproject = { '[tool.relavium-lsp]', 'extend-exclude = ["drafts/"]' }
vim.fn.writefile(pyproject, scratch .. '/pyproject.toml')
local flow = scratch .. '/flow.relavium.yaml'
local draft = scratch .. '/drafts/draft.relavium.yaml'
local workflow_lines = vim.fn.readfile(harness.repo .. '/editors/fixtures/problems.relavium.yaml')
vim.fn.writefile(workflow_lines, flow)
vim.fn.writefile(workflow_lines, draft)

-- Publishes per file name, to know when the server has analysed an edit.
local published = {}
local publish = vim.lsp.handlers['textDocument/publishDiagnostics']
vim.lsp.handlers['textDocument/publishDiagnostics'] = function(err, params, ctx)
  local name = vim.uri_to_fname(params.uri)
  published[name] = (published[name] or 0) + 1
  return publish(err, params, ctx)
end

local function open(path)
  vim.cmd.edit(path)
  local bufnr = vim.api.nvim_get_current_buf()
  wait_for('the client to attach to ' .. path, function()
    return relavium_client(bufnr) ~= nil
  end)
  return bufnr
end

local function codes(bufnr)
  local found = {}
  for _, diagnostic in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(found, diagnostic.code)
  end
  return found
end

test('settings with rules = {} apply without a warning', function()
  local bufnr = open(flow)
  wait_for('diagnostics', function()
    return #codes(bufnr) > 0
  end)
  -- the fixture's deliberate problems, at the rules' own levels
  assert(vim.tbl_contains(codes(bufnr), 'unknown-node'), vim.inspect(codes(bufnr)))
  -- every settings warning starts `relavium-lsp (<where it came from>): relavium...`
  local messages = vim.api.nvim_exec2('messages', { output = true }).output
  assert(not messages:find('relavium-lsp (', 1, true), messages)
end)

--- How many times :LspLog explains that `path` is excluded.
local function explained(path)
  local log = vim.lsp.log.get_filename()
  local text = vim.fn.filereadable(log) == 1 and table.concat(vim.fn.readfile(log), '\n') or ''
  local count = 0
  for _ in text:gmatch('no diagnostics for ' .. vim.pesc(path) .. ': excluded by') do
    count = count + 1
  end
  return count
end

test("an excluded file's reason is in :LspLog at the default level, once per opening", function()
  assert(vim.lsp.log.get_level() == vim.log.levels.WARN, 'the test must run at the default level')
  local bufnr = open(draft)
  wait_for('the reason in the log', function()
    return explained(draft) == 1
  end)
  for edit = 1, 3 do
    local before = published[draft] or 0
    vim.api.nvim_buf_set_lines(bufnr, -1, -1, false, { '# edit ' .. edit })
    wait_for('the edit analysed', function()
      return (published[draft] or 0) > before
    end)
  end
  assert(#vim.diagnostic.get(bufnr) == 0, vim.inspect(vim.diagnostic.get(bufnr)))
  assert(explained(draft) == 1, 'logged per edit: ' .. explained(draft))
  vim.cmd('bwipeout! ' .. bufnr)
  open(draft)
  wait_for('the reason logged for the second opening', function()
    return explained(draft) == 2
  end)
end)

--- The lines :checkhealth relavium_lsp writes, run from `path`'s buffer; its tab is closed.
local function checkhealth_from(path)
  vim.cmd.buffer(vim.fn.bufnr(path))
  vim.cmd('silent checkhealth relavium_lsp')
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  vim.cmd('tabclose')
  return lines
end

local function has_line(lines, pattern)
  for _, line in ipairs(lines) do
    if line:find(pattern) then
      return true
    end
  end
  return false
end

test(':checkhealth relavium_lsp reports the server, its settings and the project', function()
  local lines = checkhealth_from(flow)
  local shown = table.concat(lines, '\n')
  local client = assert(relavium_client(vim.fn.bufnr(flow)))
  local program = vim.pesc(vim.fn.exepath('relavium-lsp'))
  local version = vim.pesc(vim.trim(vim.fn.system({ 'relavium-lsp', '--version' })))
  assert(has_line(lines, '^%- ✅ OK ' .. program .. ' %(' .. version .. '%)$'), shown)
  assert(has_line(lines, '^%- ✅ OK ' .. version .. ', client id ' .. client.id), shown)
  assert(has_line(lines, 'OK the editor settings are valid'), shown)
  assert(has_line(lines, 'from the editor: debounceMs unset, sampleScope unset, rules: none'), shown)
  assert(has_line(lines, 'OK ' .. vim.pesc(scratch .. '/pyproject.toml')), shown)
  assert(has_line(lines, 'exclude: .*drafts/$'), shown)
  assert(has_line(lines, 'OK a workflow file the server checks'), shown)
  assert(not has_line(lines, 'WARNING') and not has_line(lines, 'ERROR'), shown)
end)

test(':checkhealth relavium_lsp warns of an excluded file and of invalid settings', function()
  local client = assert(relavium_client(vim.fn.bufnr(draft)))
  client.settings.relavium.rules = { 'unreachable-node' }
  client:notify('workspace/didChangeConfiguration', { settings = client.settings })
  local lines
  wait_for('the invalid setting in the health report', function()
    lines = checkhealth_from(draft)
    return has_line(lines, 'WARNING relavium.rules must map rule ids')
  end)
  local shown = table.concat(lines, '\n')
  assert(has_line(lines, 'WARNING this workflow is excluded by the project configuration'), shown)
  assert(not has_line(lines, 'ERROR'), shown)
end)

harness.run(scratch)
