"""Printed overlays: a game's board drawn to the board's true cell pitch, to lay over its sensing
area (`magboard overlay`). A game whose board is generated from a seed needs one, and declares
what printing it needs (`Game.printing`: the generator, the legend's entries, the icons).

Split by job: `placement` puts the game's area on the lattice, `tiling` decides which cells go
on which sheet of paper, `layout` holds both with the generated board, `sheet` and `legend` draw
the pages with the game's icons, `pdf` puts them together, `command` is the subcommand's body and
`subcommands` registers it.
"""
