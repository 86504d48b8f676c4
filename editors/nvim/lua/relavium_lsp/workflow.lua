-- Pure helpers for the relavium_lsp config: which files are workflows and which node the
-- cursor is in. No LSP calls here, so the headless test can check them directly.
local M = {}

--- True for `*.relavium.yaml|yml` anywhere and YAML files below a `.relavium/` directory.
---@param path string
---@return boolean
function M.is_workflow_path(path)
  local name = path:match('[^/\\]+$') or ''
  if name:match('%.relavium%.ya?ml$') then
    return true
  end
  if not name:match('%.ya?ml$') then
    return false
  end
  for segment in path:gmatch('[^/\\]+') do
    if segment == '.relavium' and segment ~= name then
      return true
    end
  end
  return false
end

local function indent_of(line)
  return #line:match('^%s*')
end

local function is_blank_or_comment(line)
  return line:match('^%s*$') ~= nil or line:match('^%s*#') ~= nil
end

local ID = '[\'"]?([%w%-]+)'

--- The id of the item starting at `start`: on its `- ` line (block or flow) or as a key below.
local function item_id(lines, start, item_indent)
  local first = lines[start]
  local id = first:match('^%s*%-%s+id:%s*' .. ID) or first:match('^%s*%-%s*{.-[{,%s]id:%s*' .. ID)
  if id then
    return id
  end
  local key_column = #(first:match('^%s*%-%s+') or '')
  for index = start + 1, #lines do
    local line = lines[index]
    if not is_blank_or_comment(line) then
      local indent = indent_of(line)
      if indent <= item_indent then
        return nil
      end
      id = indent == key_column and line:match('^%s*id:%s*' .. ID) or nil
      if id then
        return id
      end
    end
  end
  return nil
end

--- The id of the `workflow.nodes` item containing 0-based `row`, read from the lines of a block
--- YAML file. A heuristic over lines (Neovim ships no YAML parser): nil when unsure.
---@param lines string[]
---@param row integer
---@return string|nil
function M.node_at_row(lines, row)
  local target = row + 1
  local nodes_row, nodes_indent
  for index = 1, math.min(target - 1, #lines) do
    local indent = lines[index]:match('^(%s*)nodes:%s*$') or lines[index]:match('^(%s*)nodes:%s+#')
    if indent then
      nodes_row, nodes_indent = index, #indent
    end
  end
  if not nodes_row then
    return nil
  end
  local item_indent, current
  for index = nodes_row + 1, #lines do
    local line = lines[index]
    if not is_blank_or_comment(line) then
      local indent = indent_of(line)
      local is_item = line:match('^%s*%-%s') ~= nil or line:match('^%s*%-$') ~= nil
      item_indent = item_indent or ((is_item and indent >= nodes_indent) and indent or -1)
      if indent < item_indent or (indent == item_indent and not is_item) or item_indent < 0 then
        -- the list ended: the row is inside it only if it came before this line
        return index > target and current and item_id(lines, current, item_indent) or nil
      end
      if is_item and indent == item_indent then
        if index > target then
          break
        end
        current = index
      end
    end
  end
  return current and item_id(lines, current, item_indent) or nil
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
