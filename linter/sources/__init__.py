"""Where inputs come from: files and directories, standard input, a cluster."""
