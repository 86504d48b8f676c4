-- :RelaviumGraph — the server draws the buffer's workflow graph as one self-contained HTML page
-- (relavium.workflowGraph, format "html": the renderer and the data inline, nothing fetched);
-- it is written under stdpath('cache') and opened with vim.ui.open (the system's browser).
local M = {}

local COMMAND = 'relavium.workflowGraph'

--- Where the page of the workflow at `path` goes: one file per workflow (its name and a hash of
--- its full path, so two `flow.relavium.yaml` in different folders do not overwrite each other).
---@param path string
---@return string
function M.page_path(path)
  local name = vim.fs.basename(path):gsub('%.ya?ml$', '')
  local folder = vim.fs.joinpath(vim.fn.stdpath('cache'), 'relavium_lsp', 'graphs')
  return vim.fs.joinpath(folder, ('%s-%s.html'):format(name, vim.fn.sha256(path):sub(1, 12)))
end

local function write(page, text)
  vim.fn.mkdir(vim.fs.dirname(page), 'p')
  local file, open_error = io.open(page, 'wb')
  if not file then
    return open_error
  end
  local _, write_error = file:write(text)
  file:close()
  return write_error
end

local function opened(page)
  local _, open_error = vim.ui.open(page)
  if open_error then
    vim.notify(
      ('relavium: the graph is in %s; opening it failed: %s'):format(page, open_error),
      vim.log.levels.WARN
    )
  end
end

--- Asks the server for the graph page of `bufnr`, writes it and opens it; with `dry_run`, each
--- node carries its status from a dry run (with the samples file `scope`, else the sidecar or
--- synthesized values). The page's path is kept as b:relavium_last_graph.
---@param client vim.lsp.Client
---@param bufnr integer
---@param dry_run boolean
---@param scope string?
function M.show(client, bufnr, dry_run, scope)
  local argument = { uri = vim.uri_from_bufnr(bufnr), format = 'html', dryRun = dry_run }
  argument.scope = scope
  client:request('workspace/executeCommand', {
    command = COMMAND,
    arguments = { argument },
  }, function(err, result)
    if err then
      vim.notify('relavium: the workflow graph failed: ' .. err.message, vim.log.levels.ERROR)
      return
    end
    -- a refusal ({ ok = false, error }) the server has already shown as a message
    if type(result) ~= 'table' or type(result.text) ~= 'string' then
      return
    end
    local page = M.page_path(vim.api.nvim_buf_get_name(bufnr))
    local write_error = write(page, result.text)
    if write_error then
      vim.notify(('relavium: cannot write %s: %s'):format(page, write_error), vim.log.levels.ERROR)
      return
    end
    if vim.api.nvim_buf_is_valid(bufnr) then
      vim.b[bufnr].relavium_last_graph = page
    end
    opened(page)
  end, bufnr)
end

return M
