-- :checkhealth relavium_lsp — why the server does not start or does not do what you expect:
-- the server program found (path, --version), then what the running server says it runs with
-- (relavium.status: its settings, the project configuration, the workflow you came from).
local workflow = require('relavium_lsp.workflow')

local M = {}

local STATUS = 'relavium.status'
local TIMEOUT_MS = 5000

--- Reports the server program of the config's `cmd`: its path and its `--version` line.
local function check_program()
  vim.health.start('relavium-lsp: the server program')
  local cmd = (vim.lsp.config.relavium_lsp or {}).cmd
  if type(cmd) ~= 'table' or type(cmd[1]) ~= 'string' then
    vim.health.info('`cmd` is a function (a custom transport): not checked')
    return
  end
  local path = vim.fn.exepath(cmd[1])
  if path == '' then
    vim.health.error(('`%s` is not found on PATH'):format(cmd[1]), {
      'Install the server: `pipx install /path/to/relavium-lsp` puts `relavium-lsp` on PATH',
      "Or set its full path: vim.lsp.config('relavium_lsp', { cmd = { '/path/to/relavium-lsp', "
        .. "'serve' } })",
    })
    return
  end
  local ran = vim.system({ path, '--version' }, { text = true }):wait(TIMEOUT_MS)
  local version = vim.trim(ran.stdout or '')
  if ran.code ~= 0 or version == '' then
    vim.health.error(
      ('%s --version failed (exit %s): %s'):format(path, ran.code, vim.trim(ran.stderr or '')),
      { 'Reinstall the server; its Python environment may be broken' }
    )
    return
  end
  vim.health.ok(('%s (%s)'):format(path, version))
end

--- `rule = level` pairs, sorted, or "none".
local function rules_text(rules)
  local pairs_shown = {}
  for rule, level in pairs(type(rules) == 'table' and rules or {}) do
    table.insert(pairs_shown, ('%s = %s'):format(rule, level))
  end
  table.sort(pairs_shown)
  return #pairs_shown > 0 and table.concat(pairs_shown, ', ') or 'none'
end

local function shown(value)
  return (value == nil or value == vim.NIL) and 'unset' or tostring(value)
end

local function report_settings(status)
  vim.health.start('relavium-lsp: settings')
  local editor = status.editorSettings or {}
  vim.health.info(
    ('from the editor: debounceMs %s, sampleScope %s, rules: %s'):format(
      shown(editor.debounceMs),
      shown(editor.sampleScope),
      rules_text(editor.rules)
    )
  )
  local problems = type(status.settingsProblems) == 'table' and status.settingsProblems or {}
  for _, problem in ipairs(problems) do
    vim.health.warn(problem, { "Fix `settings.relavium` in vim.lsp.config('relavium_lsp', ...)" })
  end
  if #problems == 0 then
    vim.health.ok('the editor settings are valid')
  end
  local in_force = status.settings or {}
  vim.health.info(
    ('in force (editor over project file): debounceMs %s, sampleScope %s, rules: %s'):format(
      shown(in_force.debounceMs),
      shown(in_force.sampleScope),
      rules_text(in_force.rules)
    )
  )
end

local function report_project(project)
  vim.health.start('relavium-lsp: project configuration')
  if project == nil or project == vim.NIL then
    vim.health.info(
      'no relavium-lsp.toml or [tool.relavium-lsp] in pyproject.toml found: the defaults apply'
    )
    return
  end
  if project.error ~= nil and project.error ~= vim.NIL then
    vim.health.error(('%s does not load: %s'):format(project.path, project.error), {
      'Fix the file; until then the server uses its defaults (docs/configuration.md)',
    })
    return
  end
  vim.health.ok(('%s (project folder %s)'):format(shown(project.path), shown(project.root)))
  local excludes = vim.list_extend({}, project.exclude or {})
  vim.list_extend(excludes, project.extendExclude or {})
  vim.health.info(('exclude: %s'):format(#excludes > 0 and table.concat(excludes, ', ') or 'none'))
  vim.health.info(('rules: %s; sample-scope: %s'):format(
    rules_text(project.rules),
    shown(project.sampleScope)
  ))
end

local function report_document(document)
  vim.health.start('relavium-lsp: ' .. vim.uri_to_fname(document.uri))
  if document.kind == nil or document.kind == vim.NIL then
    vim.health.info('not a workflow or agent file: the server does not read it')
  elseif document.excluded then
    vim.health.warn(
      ('this %s is excluded by the project configuration: no diagnostics'):format(document.kind),
      { 'Remove it from `exclude` / `extend-exclude` to have it checked' }
    )
  else
    vim.health.ok(('a %s file the server checks'):format(document.kind))
  end
end

--- The workflow buffer :checkhealth was opened from (its own buffer is current by now): the
--- alternate buffer, else the one shown in the previous tab page.
local function origin_buffer()
  local candidates = { vim.fn.bufnr('#') }
  local previous = vim.fn.tabpagenr('#')
  if previous > 0 then
    local window = vim.api.nvim_tabpage_get_win(vim.api.nvim_list_tabpages()[previous])
    table.insert(candidates, vim.api.nvim_win_get_buf(window))
  end
  for _, bufnr in ipairs(candidates) do
    if bufnr > 0 and workflow.is_relavium_path(vim.api.nvim_buf_get_name(bufnr)) then
      return bufnr
    end
  end
  return nil
end

local function check_server()
  vim.health.start('relavium-lsp: the running server')
  local client = vim.lsp.get_clients({ name = 'relavium_lsp' })[1]
  if client == nil then
    local enabled = vim.lsp.is_enabled('relavium_lsp')
    vim.health.warn('no relavium_lsp client is running', {
      enabled and 'Open a workflow (*.relavium.yaml, YAML under .relavium/) or agent file'
        or "Enable it: vim.lsp.enable('relavium_lsp')",
    })
    return
  end
  local bufnr = origin_buffer()
  local argument = bufnr and { uri = vim.uri_from_bufnr(bufnr) } or vim.empty_dict()
  local response = client:request_sync('workspace/executeCommand', {
    command = STATUS,
    arguments = { argument },
  }, TIMEOUT_MS)
  if response == nil or response.err ~= nil or type(response.result) ~= 'table' then
    local why = response == nil and 'no answer in time' or vim.inspect(response.err)
    vim.health.error(('%s failed: %s'):format(STATUS, why), {
      'A server older than this config answers no relavium.status: update it',
    })
    return
  end
  local status = response.result
  vim.health.ok(('relavium-lsp %s, client id %d, root %s'):format(
    status.version,
    client.id,
    shown(client.root_dir)
  ))
  report_settings(status)
  report_project(status.project)
  if type(status.document) == 'table' then
    report_document(status.document)
  end
end

function M.check()
  check_program()
  check_server()
end

return M
