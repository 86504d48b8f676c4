-- Pure helpers for the relavium_lsp config: which files are Relavium's and how a run's result
-- reads. No LSP calls here, so the headless test can check them directly. Which node the cursor
-- is in is the server's to find (:RelaviumRun sends the cursor's position).
local M = {}

--- What a path holds, as the server decides it (analysis/project/kinds.py `file_kind`; the
--- headless test holds both to tests/fixtures/file-kinds.json), first match wins: a sample-scope
--- sidecar is nothing; any YAML in `.relavium/agents/` is an agent and in `.relavium/workflows/`
--- a workflow (the engine's catalog folders); then `*.agent.yaml` is an agent; `*.relavium.yaml`,
--- and other YAML under `.relavium/`, a workflow.
---@param path string
---@return 'workflow'|'agent'|nil
function M.file_kind(path)
  local segments = {}
  for segment in path:gmatch('[^/\\]+') do
    table.insert(segments, segment)
  end
  local name = (segments[#segments] or ''):lower()
  if not name:match('%.ya?ml$') or name:match('%.samples%.ya?ml$') then
    return nil
  end
  local in_project = nil
  for index = #segments - 1, 1, -1 do
    if segments[index] == '.relavium' then
      in_project = index + 1 < #segments and segments[index + 1] or ''
      break
    end
  end
  if in_project == 'agents' then
    return 'agent'
  elseif in_project == 'workflows' then
    return 'workflow'
  elseif name:match('%.agent%.ya?ml$') then
    return 'agent'
  elseif name:match('%.relavium%.ya?ml$') or in_project ~= nil then
    return 'workflow'
  end
  return nil
end

--- True for a workflow or an agent file: the buffers the server attaches to.
---@param path string
---@return boolean
function M.is_relavium_path(path)
  return M.file_kind(path) ~= nil
end

--- The lines shown by :RelaviumShowResult for a `relavium.runWithSampleScope` result: the sandbox
--- `eval` shape plus `scope` ({ source, path, values, notes }). A failure adds the author's own
--- error (`error.detail`: class, message, 1-based line and UTF-16 column), as the run message
--- and `relavium-lsp run` show it: a dry run's detail is the author's own (docs/sandbox.md).
---@param node string
---@param result any
---@return string[]
function M.describe_result(node, result)
  if type(result) ~= 'table' then
    return { ('run %s: the server returned no result (%s)'):format(node, vim.inspect(result)) }
  end
  local lines = { ('run %s'):format(node) }
  local scope = type(result.scope) == 'table' and result.scope or {}
  if type(scope.source) == 'string' then
    local path = type(scope.path) == 'string' and (' ' .. scope.path) or ''
    table.insert(lines, ('scope: %s%s'):format(scope.source, path))
  end
  for _, note in ipairs(type(scope.notes) == 'table' and scope.notes or {}) do
    table.insert(lines, 'note: ' .. tostring(note))
  end
  -- `text` fields carry the server's own JSON text: decoding drops nulls and key order.
  if type(scope.text) == 'string' then
    table.insert(lines, 'values: ' .. scope.text)
  elseif scope.values ~= nil then
    table.insert(lines, 'values: ' .. vim.json.encode(scope.values))
  end
  if result.ok == true then
    -- JSON has no NaN, ±Infinity or -0: the eval shape sends `"value": null` plus `"number"`.
    local value = type(result.text) == 'string' and result.text
      or type(result.number) == 'string' and result.number
      or vim.json.encode(result.value)
    table.insert(lines, 'value: ' .. value)
  else
    local error = type(result.error) == 'table' and result.error or {}
    local reason = error.reason and (' ' .. tostring(error.reason)) or ''
    table.insert(
      lines,
      ('error: %s%s%s: %s'):format(
        tostring(error.code or 'sandbox_error'),
        reason,
        error.retryable == true and ' (retryable)' or '',
        tostring(error.message or 'no message')
      )
    )
    local detail = error.detail
    if type(detail) == 'table' and type(detail.class) == 'string' then
      local range = type(detail.range) == 'table' and detail.range.start
      local at = type(range) == 'table'
          and (' (line %d, column %d)'):format(range.line + 1, range.character + 1)
        or ''
      table.insert(lines, ('%s: %s%s'):format(detail.class, tostring(detail.message), at))
    end
  end
  return lines
end

return M
