from server.cli import program

program()
