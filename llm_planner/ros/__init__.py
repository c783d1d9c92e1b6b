"""The thin ROS layer: message codecs, the node helpers, the launcher and the client facade.

Importing this package imports no ROS (the CLI reads its defaults without loading rclpy).
"""

#: How long a client waits for a server that has left the ROS graph before it gives up (seconds;
#: ``--server-timeout`` of the CLI).
SERVER_TIMEOUT_S = 10.0
