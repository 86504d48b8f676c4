-- What the headless tests share: the shipped config on 'runtimepath' and the repository's
-- .venv/bin on PATH (as a user's setup would), waiting, and a tiny test runner that reports on
-- stdout and exits with the result.
local M = {}

local here = vim.fs.dirname(vim.fs.abspath(debug.getinfo(1, 'S').source:sub(2)))
M.config_dir = vim.fs.dirname(here)
M.repo = vim.fs.dirname(vim.fs.dirname(M.config_dir))
M.WAIT_MS = 20000

--- Loads the config as a user's init.lua does, with `settings` for the server.
---@param settings table
function M.setup(settings)
  vim.opt.runtimepath:prepend(M.config_dir)
  vim.cmd.runtime('plugin/relavium_lsp.lua')
  vim.env.PATH = M.repo .. '/.venv/bin:' .. vim.env.PATH
  vim.lsp.enable('relavium_lsp')
  vim.lsp.config('relavium_lsp', { settings = settings })
end

function M.relavium_client(bufnr)
  return vim.lsp.get_clients({ bufnr = bufnr, name = 'relavium_lsp' })[1]
end

function M.wait_for(what, predicate)
  if not vim.wait(M.WAIT_MS, predicate, 50) then
    error('timed out waiting for ' .. what)
  end
end

--- The 0-based row and byte column of the first `needle` in `lines`.
function M.find(lines, needle)
  for index, line in ipairs(lines) do
    local col = line:find(needle, 1, true)
    if col then
      return index - 1, col - 1
    end
  end
  error('fixture has no ' .. needle)
end

local tests = {}

function M.test(name, body)
  table.insert(tests, { name = name, body = body })
end

-- io.stdout, not print(): print goes through Neovim's message area, whose newlines come before
-- a message, which would glue the closing line to the previous one.
local function say(text)
  io.stdout:write(text, '\n')
end

--- Runs the tests in order, stops the clients, deletes `scratch` and exits 0 only if all passed.
function M.run(scratch)
  local passed, failed = 0, 0
  for _, case in ipairs(tests) do
    local ok, err = xpcall(case.body, debug.traceback)
    if ok then
      passed = passed + 1
      say('ok - ' .. case.name)
    else
      failed = failed + 1
      say('not ok - ' .. case.name .. '\n' .. tostring(err))
    end
  end
  for _, client in ipairs(vim.lsp.get_clients()) do
    client:stop(true)
  end
  vim.fn.delete(scratch, 'rf')
  say(('%d passed, %d failed'):format(passed, failed))
  os.exit(failed == 0 and 0 or 1)
end

return M
