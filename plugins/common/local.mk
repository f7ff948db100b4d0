# Helpers shared by several shipped plugins (a libtool convenience library).
