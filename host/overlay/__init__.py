"""Printed overlays: a game's board drawn to the board's true cell pitch, to lay over its sensing
area (`magboard overlay`). Magnetmen needs one, because its board is generated from a seed.

Split by job: `placement` puts the game's area on the lattice, `tiling` decides which cells go
on which sheet of paper, `layout` holds both with the generated board, `icons` draws the
pictograms, `sheet` and `legend` draw the pages, `pdf` puts them together, `command` is the
subcommand's body and `subcommands` registers it.
"""
