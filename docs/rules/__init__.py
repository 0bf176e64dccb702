"""The rules of each game in the project's own words, one Markdown page per game, and the legend
of the lights: shipped with the package as `magboard.rules` and read by `magboard.host.rules`."""
