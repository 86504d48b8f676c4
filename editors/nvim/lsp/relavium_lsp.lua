-- relavium-lsp for Neovim 0.11+. With this directory on 'runtimepath':
--   vim.lsp.enable('relavium_lsp')
-- Override any field with vim.lsp.config('relavium_lsp', { ... }) (see editors/nvim/README.md).
local workflow = require('relavium_lsp.workflow')
local graph = require('relavium_lsp.graph')

local RUN = 'relavium.runWithSampleScope'
local CREATE_SCOPE = 'relavium.createSampleScope'
local DRY_RUN = 'relavium.dryRunWorkflow'

--- What a run is called in messages and :RelaviumShowResult: the node it named, else the one
--- the server found at its position (the answer's `node`), else that position.
local function run_label(argument, result)
  if argument.node then
    return argument.node
  end
  if type(result) == 'table' and type(result.node) == 'string' then
    return result.node
  end
  return ('at line %d'):format(argument.position.line + 1)
end

--- Keeps a run's result on the buffer as b:relavium_last_run = { node = ..., result = ... } for
--- :RelaviumShowResult. The server itself reports each run with window/showMessage, which
--- Neovim shows through vim.notify, so only a failed request is reported here.
local function keep_run_result(bufnr, argument, err, result)
  local node = run_label(argument, result)
  if err then
    vim.notify(('relavium: run %s failed: %s'):format(node, err.message), vim.log.levels.ERROR)
    return
  end
  if vim.api.nvim_buf_is_valid(bufnr) then
    vim.b[bufnr].relavium_last_run = { node = node, result = result }
  end
end

--- Sends `relavium.runWithSampleScope` for `argument` ({ uri, node | position, scope? }).
local function run(client, bufnr, argument)
  local params = { command = RUN, arguments = { argument } }
  client:request('workspace/executeCommand', params, function(err, result)
    keep_run_result(bufnr, argument, err, result)
  end, bufnr)
end

local function show_result(bufnr)
  local last = vim.b[bufnr].relavium_last_run
  if not last then
    vim.notify('relavium: nothing has run in this buffer yet (:RelaviumRun)', vim.log.levels.WARN)
    return
  end
  local lines = workflow.describe_result(last.node, last.result)
  vim.cmd('botright new')
  local scratch = vim.api.nvim_get_current_buf()
  vim.bo[scratch].buftype = 'nofile'
  vim.bo[scratch].bufhidden = 'wipe'
  vim.bo[scratch].swapfile = false
  vim.api.nvim_buf_set_lines(scratch, 0, -1, false, lines)
  vim.bo[scratch].modifiable = false
  vim.api.nvim_buf_set_name(scratch, ('relavium://run/%s/%d'):format(last.node, scratch))
end

local function attach_commands(client, bufnr)
  vim.api.nvim_buf_create_user_command(bufnr, 'RelaviumRun', function(opts)
    local argument = {
      uri = vim.uri_from_bufnr(bufnr),
      node = opts.fargs[1],
      scope = opts.fargs[2],
    }
    if not argument.node then
      -- the server finds the node at the cursor, in the position encoding it negotiated; in no
      -- node with an expression it says so and lists those that have one
      argument.position = vim.lsp.util.make_position_params(0, client.offset_encoding).position
    end
    run(client, bufnr, argument)
  end, {
    nargs = '*',
    desc = 'Run a node (the one under the cursor, or ID) with a sample scope: [ID [SCOPE.json]]',
  })
  vim.api.nvim_buf_create_user_command(bufnr, 'RelaviumShowResult', function()
    show_result(bufnr)
  end, { desc = 'Show the last sample-scope run of this buffer' })
  -- The server shows the results itself (inlay hints, dimmed nodes, failures as diagnostics,
  -- until the next edit); the answer is kept as b:relavium_last_dry_run.
  vim.api.nvim_buf_create_user_command(bufnr, 'RelaviumDryRun', function(opts)
    local argument = { uri = vim.uri_from_bufnr(bufnr), scope = opts.fargs[1] }
    client:request('workspace/executeCommand', {
      command = DRY_RUN,
      arguments = { argument },
    }, function(err, result)
      if err then
        vim.notify('relavium: dry run failed: ' .. err.message, vim.log.levels.ERROR)
      elseif vim.api.nvim_buf_is_valid(bufnr) then
        vim.b[bufnr].relavium_last_dry_run = result
        vim.lsp.inlay_hint.enable(true, { bufnr = bufnr })
      end
    end, bufnr)
  end, { nargs = '?', desc = 'Dry-run the whole workflow: [SAMPLES.json]' })
  vim.api.nvim_buf_create_user_command(bufnr, 'RelaviumCreateSampleScope', function()
    client:request('workspace/executeCommand', {
      command = CREATE_SCOPE,
      arguments = { { uri = vim.uri_from_bufnr(bufnr) } },
    }, function(err)
      if err then
        local message = 'relavium: creating the sample scope failed: ' .. err.message
        vim.notify(message, vim.log.levels.ERROR)
      end
    end, bufnr)
  end, { desc = 'Write a sample-scope sidecar skeleton for this workflow' })
  vim.api.nvim_buf_create_user_command(bufnr, 'RelaviumGraph', function(opts)
    graph.show(client, bufnr, opts.bang or opts.fargs[1] ~= nil, opts.fargs[1])
  end, {
    bang = true,
    nargs = '?',
    desc = "Open the workflow's graph in a browser; !, or samples: with a dry run [SAMPLES.json]",
  })
end

--- Neovim shows code lenses ("▶ Run with sample scope") only once they are fetched: fetch them
--- on attach and again after edits, as the LSP docs' usual autocommand does.
local function refresh_code_lenses(client, bufnr)
  if not client:supports_method('textDocument/codeLens', bufnr) then
    return
  end
  local function refresh()
    vim.lsp.codelens.refresh({ bufnr = bufnr })
  end
  refresh()
  local group = vim.api.nvim_create_augroup('relavium_lsp_codelens_' .. bufnr, { clear = true })
  vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'TextChanged', 'CursorHold' }, {
    group = group,
    buffer = bufnr,
    callback = refresh,
  })
  vim.api.nvim_create_autocmd('LspDetach', {
    group = group,
    buffer = bufnr,
    callback = function(args)
      if args.data.client_id == client.id then
        vim.api.nvim_del_augroup_by_id(group)
      end
    end,
  })
end

local function on_attach(client, bufnr)
  attach_commands(client, bufnr)
  refresh_code_lenses(client, bufnr)
end

---@type vim.lsp.Config
return {
  cmd = { 'relavium-lsp', 'serve' },
  filetypes = { 'yaml' },
  -- Only workflow and agent files attach; other YAML in the same editor is left alone.
  root_dir = function(bufnr, on_dir)
    local name = vim.api.nvim_buf_get_name(bufnr)
    if workflow.is_relavium_path(name) then
      on_dir(vim.fs.root(bufnr, { '.relavium', '.git' }) or vim.fs.dirname(name))
    end
  end,
  -- The `relavium` section the server reads: debounceMs, rules, sampleScope.
  settings = { relavium = vim.empty_dict() },
  -- Code lens runs land here too, so :RelaviumShowResult shows them as well.
  commands = {
    [RUN] = function(command, ctx)
      local client = assert(vim.lsp.get_client_by_id(ctx.client_id))
      run(client, ctx.bufnr, command.arguments[1])
    end,
  },
  on_attach = on_attach,
}
