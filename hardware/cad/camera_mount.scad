// Camera and light-ring mount: an L-shaped gallows screwed to the boss on the tray's left wall
// that holds the camera, lens down, over the middle of the tray at the height its field of view
// needs (camera_height in common.scad), with the WS2812 ring around the lens.
// Printed flat: the gallows (it stands in the tray's x-z plane when assembled), the
// camera/ring plate that hangs under the arm's end, and a cable clip.
include <common.scad>

bar = [24, 8];            // gallows cross-section: width (in its own plane) × thickness
plate_t = 4;
boss_out = 8;             // the tray's boss sticks out this far from its left wall
foot_holes = [7, 22];     // M3 holes through the column's foot, heights above the table
plate_holes = ring_od / 2 + 4;  // plate screws either side of the ring, along the arm
pocket = [32, 14];        // notch in the arm's underside over the camera board

tray_outer_w = tray_inner_w + 2 * tray_wall;
// In the gallows' print frame x = tray x + bar[0] + boss_out (the column is outside the boss).
lens_x = tray_outer_w / 2 + bar[0] + boss_out;
arm_end = lens_x + plate_holes + 8;
arm_under = tray_floor + camera_height + plate_t;  // the arm's underside above the table
column_len = arm_under + bar[0];

module gallows() {
    difference() {
        union() {
            cube([bar[0], column_len, bar[1]]);
            translate([0, arm_under, 0]) cube([arm_end, bar[0], bar[1]]);
        }
        // foot: two M3 screws across the column into the tray's boss
        for (y = foot_holes)
            translate([-1, y, bar[1] / 2]) rotate([0, 90, 0]) cylinder(d = screw_m3, h = bar[0] + 2);
        // arm: two M3 pilot holes up into its underside for the camera plate
        for (dx = [-plate_holes, plate_holes])
            translate([lens_x + dx, arm_under - 1, bar[1] / 2]) rotate([-90, 0, 0])
                cylinder(d = pilot_m3, h = 13);
        // room for the camera board above the plate
        translate([lens_x - pocket[0] / 2, arm_under - 1, -1]) cube([pocket[0], pocket[1] + 1, bar[1] + 2]);
    }
}

module camera_plate() {
    side = ring_od + 16;
    difference() {
        translate([-side / 2, -side / 2, 0]) cube([side, side, plate_t]);
        // lens
        translate([0, 0, -1]) cylinder(d = camera_lens_d, h = plate_t + 2);
        // camera board's M2 holes, around the lens
        for (x = [-camera_holes[0] / 2, camera_holes[0] / 2],
             y = [-camera_holes[1] / 2, camera_holes[1] / 2])
            translate([x, y, -1]) cylinder(d = camera_hole_d, h = plate_t + 2);
        // recess for the light ring on the underside, and a hole for its three wires
        translate([0, 0, -1]) difference() {
            cylinder(d = ring_od + 0.6, h = 1 + ring_t / 2);
            translate([0, 0, -1]) cylinder(d = ring_id - 0.6, h = ring_t + 2);
        }
        translate([0, ring_id / 2 + 2, -1]) cylinder(d = 5, h = plate_t + 2);
        // M3 holes onto the arm, either side of the ring
        for (dx = [-plate_holes, plate_holes]) translate([dx, 0, -1]) cylinder(d = screw_m3, h = plate_t + 2);
    }
}

module cable_clip() {
    difference() {
        cube([24, 14, 3]);
        translate([6, 4, -1]) cube([12, 6, 5]);
    }
}

echo(camera_height = camera_height);
echo(camera_view = [view_w, view_d]);
echo(lens_above_floor = arm_under - plate_t - tray_floor, lens_over_tray_x = lens_x - bar[0] - boss_out);
gallows();
translate([arm_end + ring_od / 2 + 20, ring_od / 2 + 10, 0]) camera_plate();
translate([bar[0] + 15, 10, 0]) cable_clip();
