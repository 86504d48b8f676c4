-- Workflow and agent files open as YAML (so the `yaml` filetype of lsp/relavium_lsp.lua
-- attaches), even where another plugin claims *.yaml for something else (Ansible, Helm, ...).
vim.filetype.add({
  pattern = {
    ['.*%.relavium%.ya?ml'] = { 'yaml', { priority = 10 } },
    ['.*%.agent%.ya?ml'] = { 'yaml', { priority = 10 } },
    ['.*/%.relavium/.*%.ya?ml'] = { 'yaml', { priority = 10 } },
  },
})
