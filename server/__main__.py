from server.cli.main import program

program()
